import Testing

@testable import SimModel

/// A replayed store's own fields in blocks (`OverlayFields`): the same answers as one sorted
/// array, through inserts in any order, replacements, splits, changes in place and removals.
@Suite struct OverlayFieldsTests {
  func entry(_ field: Int32, _ value: Int32, dirty: Bool = true) -> OverlayField {
    OverlayField(field: field, local: LocalField(write: WriteID(Int(value)), value: value, dirty: dirty), since: 0)
  }

  @Test func blocksAnswerAsOneSortedArray() {
    var fields = OverlayFields()
    var reference: [Int32: Int32] = [:]  // lookup only
    var random: UInt64 = 12345
    for step in 0..<5000 {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let field = Int32((random >> 33) % 3000)
      fields.set(entry(field, Int32(step)))
      reference[field] = Int32(step)
    }
    #expect(fields.map(\.field) == reference.keys.sorted(), "ascending, each field once, across split blocks")
    for field in 0..<3000 { #expect(fields.entry(field)?.local.value == reference[Int32(field)]) }
    #expect(fields.modify(7) { $0.local.dirty = false } == (reference[7] != nil))
    #expect(!fields.modify(5000) { _ in })
    fields.removeAll { $0.field % 2 == 0 }
    #expect(fields.allSatisfy { $0.field % 2 == 1 })
    #expect(fields.map(\.field) == reference.keys.filter { $0 % 2 == 1 }.sorted())
    fields.removeAll { _ in true }
    #expect(fields.isEmpty)
    fields.set(entry(3, 1))
    #expect(fields.entry(3)?.local.value == 1)
  }
}
