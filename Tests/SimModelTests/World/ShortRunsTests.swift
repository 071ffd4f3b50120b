import Testing

@testable import SimModel

/// The array shortcuts the model uses on its hot paths do what the standard forms do.
struct ShortRunsTests {
  @Test(arguments: [0, 1, 4, 5, 40])
  func emptyingKeepsTheStorage(count: Int) {
    var array = (0..<count).map { Int32($0) }
    let capacity = array.capacity
    array.removeAllKeepingCapacity()
    #expect(array.isEmpty)
    #expect(array.capacity == capacity)
  }

  @Test(arguments: [0, 1, 5, 16, 17, 100])
  func appendingARunEqualsRepeating(count: Int) {
    var array: [Int32] = [7]
    array.append(repeating: -1, count: count)
    #expect(array == [7] + [Int32](repeating: -1, count: count))
  }
}
