import SimKernel

/// The rate limiter's memory of each device's activity runs: the one place that knows how runs
/// are held, lent and forgotten, and when the history need not be read at all.
///
/// Policies see the runs through `RecentRuns`, a read-only view, or (a researcher's policy) as
/// a plain `ArraySlice` copy; nothing outside this file touches the buffers.
///
/// Why it is more than an array per device (each measured on the fleet bench, see
/// `docs/performance-history.md`):
/// - Runs are kept only within the longest window in effect (`horizon`): a head index skips the
///   forgotten ones, compacted when they are half the buffer.
/// - The newest runs wait in the device's own state (`DeviceRuns.held`, four at a time) and reach
///   the history only when it is about to be read: appending each one wrote a cold cache line.
/// - `DeviceRuns.headroom` is a lower bound on how many more runs it takes before any window could
///   be full; while it is at least 1 a decision does not read the history (cold rows) at all.
/// - The rows are `RowBuffer`s and are lent in place (`UnsafeBufferPointer`, hence this file's
///   use of it): reaching them reads no array header.
struct RunHistory {
  /// Per device: its live runs, oldest first, after `DeviceRuns.head` forgotten ones.
  private let rows = Column<RowBuffer<SimTime>>()
  /// How long runs are remembered: the rate limiters' longest window (zero: not recorded).
  let horizon: SimDuration
  /// Where a device's runs are copied for a researcher's policy (reused: no allocation per decision).
  private let scratch = RunScratch()

  init(horizon: SimDuration) {
    self.horizon = horizon
  }

  /// Adds an empty history for the next device.
  func addDevice() { rows.append(RowBuffer()) }

  func reserveDevices(_ count: Int) { rows.reserveCapacity(count) }

  /// Reserves room for `runs` runs in `device`'s history.
  func reserve(device: Int, runs: Int) { rows[device].reserveCapacity(runs) }

  /// Remembers a run: held in the device's state, and moved to the history with the runs held
  /// before it when the buffer is full or the history is read.
  @inline(__always)
  func record(_ run: SimTime, device: Int, _ state: inout DeviceRuns) {
    guard horizon > .zero else { return }
    state.headroom -= 1
    if state.held.isFull { flush(device: device, &state) }
    state.held.append(run)
  }

  /// Whether no rate-limit window can be full, so the rate limiters would proceed whatever the
  /// history holds. Reads the history (and refreshes the headroom) only when the headroom left
  /// from the last reading has run out.
  @inline(__always)
  func windowsHaveRoom(device: Int, _ state: inout DeviceRuns, at now: SimTime, policies: PolicySet) -> Bool {
    if state.headroom >= 1 { return true }
    flush(device: device, &state)
    let headroom = withLiveRuns(device: device, state) { policies.runHeadroom(after: $0, at: now) }
    state.headroom = Int32(clamping: headroom)
    return state.headroom >= 1
  }

  /// Calls `body` with the device's live runs, oldest first, after moving the held runs to the
  /// history; `copy` is the same runs as a slice for a researcher's policy (empty unless asked).
  @inline(__always)
  func withRuns<Result>(
    device: Int, _ state: inout DeviceRuns, copyForResearcher: Bool,
    _ body: (_ view: RecentRuns, _ copy: ArraySlice<SimTime>) -> Result
  ) -> Result {
    flush(device: device, &state)
    let scratch = scratch
    return withLiveRuns(device: device, state) { view in
      body(view, copyForResearcher ? scratch.slice(copying: view.rows) : [])
    }
  }

  /// The device's live runs as an array (for tests and reports).
  func liveRuns(device: Int, _ state: DeviceRuns) -> [SimTime] {
    var runs = withLiveRuns(device: device, state) { Array($0.rows) }
    for index in 0..<Int(state.held.count) { runs.append(state.held[index]) }
    return runs
  }

  /// Bytes the histories take (capacity, not count), and their inline slots.
  var bytes: (rows: Int, slots: Int) {
    var total = 0
    for device in rows.indices { total += rows[device].capacity * MemoryLayout<SimTime>.stride }
    return (total, rows.count * MemoryLayout<RowBuffer<SimTime>>.stride)
  }

  @inline(__always)
  private func withLiveRuns<Result>(device: Int, _ state: DeviceRuns, _ body: (RecentRuns) -> Result) -> Result {
    rows[device].withRows(Int(state.head)..<rows[device].count) { body(RecentRuns(rows: $0.buffer)) }
  }

  /// Moves the device's held runs to its history, in order, as if each had been appended when it
  /// was recorded; the history then reads exactly as it would have.
  private func flush(device: Int, _ state: inout DeviceRuns) {
    let held = state.held
    guard held.count > 0 else { return }
    state.held.removeAll()
    for index in 0..<Int(held.count) { append(held[index], device: device, &state) }
  }

  /// Appends a run, forgetting runs older than the horizon: skipped with the head index and
  /// compacted only when they are half the buffer, so appending is amortised O(1).
  private func append(_ run: SimTime, device: Int, _ state: inout DeviceRuns) {
    rows[device].append(run)
    let cutoff = run.advanced(by: SimDuration(nanoseconds: -horizon.nanoseconds))
    if state.oldestAt == SimTime(nanoseconds: .max) {
      state.oldestAt = run
    } else if state.oldestAt <= cutoff {
      let head = Int(state.head) + withLiveRuns(device: device, state) { $0.firstIndex(after: cutoff) }
      state.head = Int32(head)
      state.oldestAt = rows[device][head]
    }
    if Int(state.head) * 2 > rows[device].count {
      rows[device].removeFirst(Int(state.head))
      state.head = 0
    }
  }
}

/// A read-only view of a device's runs, oldest first, lent for one decision.
struct RecentRuns {
  fileprivate let rows: UnsafeBufferPointer<SimTime>

  fileprivate init(rows: UnsafeBufferPointer<SimTime>) { self.rows = rows }

  /// No runs.
  static var none: RecentRuns { RecentRuns(rows: UnsafeBufferPointer(start: nil, count: 0)) }

  /// Calls `body` with a view of `runs` (a researcher's or a test's slice).
  static func withView<Result>(of runs: ArraySlice<SimTime>, _ body: (RecentRuns) -> Result) -> Result {
    runs.withUnsafeBufferPointer { body(RecentRuns(rows: $0)) }
  }

  var count: Int { rows.count }

  subscript(index: Int) -> SimTime { rows[index] }

  /// Where the first run after `cutoff` is, or `count` if none is (runs are sorted).
  func firstIndex(after cutoff: SimTime) -> Int {
    var low = 0
    var high = rows.count
    while low < high {
      let mid = (low + high) / 2
      if rows[mid] <= cutoff { low = mid + 1 } else { high = mid }
    }
    return low
  }
}

/// A reused array into which a device's runs are copied for a researcher's policy. A class, so
/// that filling it needs no mutable access to the world; its array is refilled in place once the
/// previous decision's slice has ended.
private final class RunScratch {
  private var runs: [SimTime] = []

  func slice(copying rows: UnsafeBufferPointer<SimTime>) -> ArraySlice<SimTime> {
    runs.removeAll(keepingCapacity: true)
    runs.append(contentsOf: rows)
    return runs[...]
  }
}
