import SimKernel

/// A device's run bookkeeping for the scheduler's rate limiters (`RunHistory`), which lives in
/// its `DeviceState`, in cache with the rest of it: the device's, as its push mailbox is.
struct DeviceRuns: BitwiseCopyable {
  /// Where its live runs start in its history (older ones are forgotten).
  var head: Int32 = 0
  /// A lower bound on how many more runs it takes before a rate-limit window could be full, less
  /// the runs since it was computed (see `RunHistory.windowsHaveRoom`).
  var headroom: Int32 = 0
  /// The time of the oldest live run: recording a run then reads no old run.
  var oldestAt = SimTime(nanoseconds: .max)
  /// Runs recorded but not yet moved to the history.
  var held = HeldRuns()
}

/// A device's newest runs, held inside its state until they move to its history (four at a time).
struct HeldRuns: BitwiseCopyable {
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
