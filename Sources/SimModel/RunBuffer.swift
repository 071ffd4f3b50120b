import SimKernel

/// A device's newest rate-limited runs, held inside its state until they move to its run history.
///
/// Appending each run to the history wrote its end, a cold cache line on every approval (and,
/// while the histories were arrays, read the array's header, another). Held here, next to the rest
/// of the device's scheduler state, runs reach the history four at a time, and only when the
/// history is about to be read (a decision that must look at it) or the buffer is full.
struct RunBuffer: BitwiseCopyable {
  /// How many runs a buffer holds.
  static var capacity: Int { 4 }

  private(set) var count: Int32 = 0
  private var run0 = SimTime.zero
  private var run1 = SimTime.zero
  private var run2 = SimTime.zero
  private var run3 = SimTime.zero

  var isFull: Bool { Int(count) == Self.capacity }

  /// Holds `run` after the others. - Precondition: not full.
  mutating func append(_ run: SimTime) {
    switch count {
    case 0: run0 = run
    case 1: run1 = run
    case 2: run2 = run
    default: run3 = run
    }
    count += 1
  }

  /// The held runs, oldest first.
  subscript(index: Int) -> SimTime {
    switch index {
    case 0: run0
    case 1: run1
    case 2: run2
    default: run3
    }
  }

  mutating func removeAll() { count = 0 }
}
