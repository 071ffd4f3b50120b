import Testing

@testable import SimModel

/// A replayed store's own fields in blocks (`OverlayFieldBlocks`): the same answers as one sorted
/// array, through inserts in any order, replacements, splits, changes in place and removals.
@Suite struct OverlayFieldBlocksTests {
  func entry(_ field: Int32, _ value: Int32, dirty: Bool = true) -> OverlayField {
    OverlayField(field: field, local: LocalField(write: WriteID(Int(value)), value: value, dirty: dirty), since: 0)
  }

  @Test func blocksAnswerAsOneSortedArray() {
    var fields = OverlayFieldBlocks()
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

  /// Removing the clean entries of ranges of fields (the records a page carried), among sets,
  /// across blocks that empty and split: the same as a dictionary.
  @Test func removingRangesAnswersAsADictionary() {
    var fields = OverlayFieldBlocks()
    var reference: [Int32: (value: Int32, dirty: Bool)] = [:]  // lookup only
    var random: UInt64 = 99
    func next(_ bound: UInt64) -> UInt64 {
      random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return (random >> 33) % bound
    }
    for step in 0..<20_000 {
      if next(3) == 0 {
        let start = Int32(next(4000))
        let range = start..<start + Int32(next(40))
        fields.remove(range) { !$0.local.dirty }
        for field in range where reference[field]?.dirty == false { reference[field] = nil }
      } else {
        let field = Int32(next(4000))
        let dirty = next(2) == 0
        fields.set(entry(field, Int32(step), dirty: dirty))
        reference[field] = (Int32(step), dirty)
      }
    }
    #expect(fields.map(\.field) == reference.keys.sorted())
    for field in 0..<4000 {
      let got = fields.entry(field)
      #expect(got?.local.value == reference[Int32(field)]?.value && got?.local.dirty == reference[Int32(field)]?.dirty)
    }
    #expect(reference.values.contains { !$0.dirty } && reference.values.contains { $0.dirty })
  }
}
