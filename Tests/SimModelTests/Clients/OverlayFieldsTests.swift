import SimKernel
import Testing

@testable import SimModel

/// A replayed store's overlay with its deleted records put apart (`OverlayFields.retire`): every
/// answer the same as one dictionary of entries, through sets, changes in place, removals of
/// ranges and retirements, and the entries listed by field.
@Suite struct OverlayFieldsTests {
  /// 600 objects laid out in object order with 1 to 4 fields each, as a zone lays them out.
  static let fieldCounts = (0..<600).map { Int32(1 + $0 % 4) }
  static let bases = fieldCounts.reduce(into: [Int32(0)]) { $0.append($0.last! + $1) }

  func fields(of object: Int) -> Range<Int32> { Self.bases[object]..<Self.bases[object + 1] }

  @Test func retiringObjectsChangesNoAnswer() {
    var overlay = OverlayFields()
    var reference: [Int32: (value: Int32, dirty: Bool)] = [:]  // lookup only
    var random = RandomStream(seed: 7)
    func next(_ bound: UInt64) -> UInt64 { random.nextInt(below: bound) }
    var retired = 0
    for step in 0..<30_000 {
      let object = Int(next(600))
      let range = fields(of: object)
      let field = range.lowerBound + Int32(next(UInt64(range.count)))
      switch next(8) {
      case 0:
        overlay.remove(range, of: ObjectID(object)) { !$0.local.dirty }
        for field in range where reference[field]?.dirty == false { reference[field] = nil }
      case 1:
        let changed = overlay.modify(Int(field), of: ObjectID(object)) { $0.local.dirty = false }
        #expect(changed == (reference[field] != nil))
        if let held = reference[field] { reference[field] = (held.value, false) }
      case 2:
        overlay.retire(ObjectID(object), fields: range)
        retired += 1
      default:
        let dirty = next(2) == 0
        overlay.set(
          OverlayField(
            field: field, local: LocalField(write: WriteID(step), value: Int32(step), dirty: dirty), since: 0),
          of: ObjectID(object))
        reference[field] = (Int32(step), dirty)
      }
    }
    #expect(retired > 3000, "most objects were put apart, many of them then set again")
    #expect(overlay.map(\.field) == reference.keys.sorted(), "listed by field, each once, from both parts")
    for object in 0..<600 {
      for field in fields(of: object) {
        let got = overlay.entry(Int(field), of: ObjectID(object))
        #expect(got?.local.value == reference[field]?.value && got?.local.dirty == reference[field]?.dirty)
      }
    }
    overlay.removeAll { !$0.local.dirty }
    #expect(overlay.map(\.field) == reference.filter { $0.value.dirty }.keys.sorted())
    #expect(overlay.allSatisfy { $0.local.dirty })
  }
}
