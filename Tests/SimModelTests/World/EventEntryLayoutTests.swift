import Testing

@testable import SimKernel
@testable import SimModel

/// The queue's entry for the model's events keeps its payload at an 8-byte offset: at offset 20
/// (after the 4-byte slot) the 9-byte event was copied through the stack in pieces that a later
/// load straddled, and most of the heap's insert time went to waiting on those failed
/// store-to-load forwards (docs/performance-history.md, issue 37's ninth part).
@Suite struct EventEntryLayoutTests {
  typealias Entry = EventEntry<ModelEvent>

  @Test func theModelsEventIsNineBytesAtFourByteAlignment() {
    // What the layout below was measured with: a wider or narrower event moves the question.
    #expect(MemoryLayout<ModelEvent>.size == 9)
    #expect(MemoryLayout<ModelEvent>.alignment == 4)
  }

  @Test func thePayloadFollowsTheTwoKeysAndTheEntryStaysThirtyTwoBytes() {
    #expect(MemoryLayout<Entry>.offset(of: \Entry.time) == 0)
    #expect(MemoryLayout<Entry>.offset(of: \Entry.order) == 8)
    #expect(MemoryLayout<Entry>.offset(of: \Entry.payload) == 16)
    #expect(MemoryLayout<Entry>.offset(of: \Entry.slot) == 28)
    #expect(MemoryLayout<Entry>.stride == 32)
  }
}
