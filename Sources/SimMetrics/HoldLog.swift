import SimKernel
import SimModel

/// What held a store's saved changes when no export of it stood waiting or running: the device's
/// app state and connectivity, the store's resets and its disabling, and a write's loss, each
/// as it changed. A row's `exportHeld.*` columns are read from it (`MetricsRecorder.exportSplit`).
///
/// Kept only where rows are split (`MetricsRecorder.keepsPushLog`): a public-database day at a
/// million installs has 12 million app-state changes.
struct HoldLog {
  /// Why a row's export or import waited with no activity of its chain behind it (and, first,
  /// the time an earlier activity of the chain ran): `LatencyRow.heldNames`, in order.
  enum Reason: Int, CaseIterable {
    /// The name in results (`exportHeld.<name>`, `importHeld.<name>`).
    var name: String { "\(self)" }

    /// An earlier activity of the chain was running (an export the row waits behind, or, at the
    /// run's end, one that may yet carry it).
    case running
    /// The chain's last activity failed, or was cancelled when the app was terminated, and the
    /// client asked for no other yet (CKSyncEngine's `limitExceeded`: the app's next send; a
    /// push-launched app whose other store's import the termination cancelled).
    case failed
    /// The write was lost (a removed store, state never persisted): nothing waits any more.
    case lost
    /// The store stopped syncing (error 134410).
    case storeDisabled
    /// A reset's initial import was under way: the saves it guards wait for it.
    case reset
    /// The container was setting up the store (its zone and subscription) on its first use,
    /// before which it asks for no activity. [C] eczema-helper #713
    case setup
    /// The app was not running (never launched, force-quit or crashed).
    case notRunning
    /// The app was suspended: nothing asks for an export until something wakes it.
    case suspended
    /// The device was offline.
    case offline
  }

  /// Per device, its app state at the start (which the model does not announce unless it is
  /// the foreground; a device not listed starts in the foreground, as `DeviceSpec`'s default).
  var initialAppStates: [AppState] = []
  /// Per device, app-state changes in time order.
  var appStates: [[(state: AppState, at: SimTime)]] = []
  /// Per device, connectivity changes in time order.
  var online: [[(online: Bool, at: SimTime)]] = []
  /// Per store, its resets (to the reset's end; the run's end for one still under way).
  var resets: [[(from: SimTime, to: SimTime?)]] = []
  /// Per store, when it stopped syncing, if it did.
  var disabledAt: [SimTime?] = []
  /// Per store, when its first activity (of any kind) was asked for: before it, the container
  /// was setting the store up.
  var firstActivityAt: [SimTime?] = []
  /// When each lost write was lost (few are).
  var lostAt: [WriteID: SimTime] = [:]

  /// Per device, beside `appStates`: the time spent not running from its first change to each
  /// change (nanoseconds), so that a span's not-running time is two binary searches.
  var notRunningSinceFirst: [[Int64]] = []

  mutating func ensure(device: DeviceID) {
    while appStates.count <= device.index {
      appStates.append([])
      online.append([])
      notRunningSinceFirst.append([])
    }
  }

  /// Logs an app-state change of `device` (ensured), in time order.
  mutating func appendAppState(_ state: AppState, at: SimTime, device: DeviceID) {
    let index = device.index
    let cumulative =
      appStates[index].last.map { last in
        notRunningSinceFirst[index].last! + (last.state == .notRunning ? (at - last.at).nanoseconds : 0)
      } ?? 0
    appStates[index].append((state, at))
    notRunningSinceFirst[index].append(cumulative)
  }

  /// The time `device`'s app was not running in [0, `time`).
  func notRunningTime(before time: SimTime, device: DeviceID) -> Int64 {
    let initial = device.index < initialAppStates.count ? initialAppStates[device.index] : .foreground
    let states = device.index < appStates.count ? appStates[device.index] : []
    var count = 0
    var high = states.count
    while count < high {
      let middle = (count + high) / 2
      if states[middle].at <= time { count = middle + 1 } else { high = middle }
    }
    guard count > 0 else { return initial == .notRunning ? time.nanoseconds : 0 }
    let first = initial == .notRunning ? states[0].at.nanoseconds : 0
    let last = states[count - 1]
    return first + notRunningSinceFirst[device.index][count - 1]
      + (last.state == .notRunning ? (time - last.at).nanoseconds : 0)
  }

  mutating func ensure(store: StoreID) {
    while resets.count <= store.index {
      resets.append([])
      disabledAt.append(nil)
      firstActivityAt.append(nil)
    }
  }

  /// Books [from, to) of a row whose store's last export (if any) ended `failed`, to the reason
  /// that held it at each instant, into `held` (indexed by `Reason`); returns the time no reason
  /// explains.
  func book(
    from: SimTime, to: SimTime, store: StoreID, device: DeviceID, write: WriteID, afterFailure: Bool,
    into held: inout [SimDuration]
  ) -> SimDuration {
    guard to > from else { return .zero }
    var cuts = [from, to]
    let states = device.index < appStates.count ? appStates[device.index] : []
    let links = device.index < online.count ? online[device.index] : []
    for change in states where change.at > from && change.at < to { cuts.append(change.at) }
    for change in links where change.at > from && change.at < to { cuts.append(change.at) }
    let storeResets = store.index < resets.count ? resets[store.index] : []
    for reset in storeResets {
      if reset.from > from && reset.from < to { cuts.append(reset.from) }
      if let end = reset.to, end > from && end < to { cuts.append(end) }
    }
    let disabled = store.index < disabledAt.count ? disabledAt[store.index] : nil
    if let disabled, disabled > from && disabled < to { cuts.append(disabled) }
    let lost = lostAt[write]
    if let lost, lost > from && lost < to { cuts.append(lost) }
    cuts.sort()
    var unexplained = SimDuration.zero
    for (start, end) in zip(cuts, cuts.dropFirst()) where end > start {
      let reason: Reason?
      if let lost, lost <= start {
        reason = .lost
      } else if let disabled, disabled <= start {
        reason = .storeDisabled
      } else if storeResets.contains(where: { $0.from <= start && ($0.to.map { $0 > start } ?? true) }) {
        reason = .reset
      } else {
        let initial = device.index < initialAppStates.count ? initialAppStates[device.index] : .foreground
        switch Self.last(states, at: start, by: \.at)?.state ?? initial {
        case .notRunning: reason = .notRunning
        case .suspended: reason = .suspended
        case .foreground, .background:
          if Self.last(links, at: start, by: \.at)?.online == false {
            reason = .offline
          } else if store.index < firstActivityAt.count, firstActivityAt[store.index].map({ $0 > start }) ?? true {
            reason = .setup
          } else {
            reason = afterFailure ? .failed : nil
          }
        }
      }
      if let reason { held[reason.rawValue] += end - start } else { unexplained += end - start }
    }
    return unexplained
  }

  /// Where `bookNoPush` books, in `LatencyRow.notifyCauseNames`.
  static let notRunningCause = LatencyRow.notifyCauseNames.firstIndex(of: "notRunning")!
  static let setupCause = LatencyRow.notifyCauseNames.firstIndex(of: "setup")!
  static let noPushCause = LatencyRow.notifyCauseNames.firstIndex(of: "noPush")!

  /// Books a wait with no push on its way, [from, to), into notify causes by the app's state at
  /// each instant: `notRunning` while the app was not running, `setup` while it ran but the
  /// container was still setting the store up (before the store's first activity), else `noPush`.
  func bookNoPush(from: SimTime, to: SimTime, store: StoreID, device: DeviceID, into causes: inout [SimDuration]) {
    guard to > from else { return }
    // O(log n) a row: a walk over the span's changes made auditing the million-record import
    // 10x slower (every row's span crosses the importer's many app-state changes).
    let firstActivity = store.index < firstActivityAt.count ? firstActivityAt[store.index] : nil
    let split = min(max(firstActivity ?? to, from), to)
    let notRunningAt = { (time: SimTime) in self.notRunningTime(before: time, device: device) }
    let (atFrom, atSplit, atTo) = (notRunningAt(from), notRunningAt(split), notRunningAt(to))
    causes[Self.notRunningCause] += SimDuration(nanoseconds: atTo - atFrom)
    causes[Self.setupCause] += SimDuration(nanoseconds: (split - from).nanoseconds - (atSplit - atFrom))
    causes[Self.noPushCause] += SimDuration(nanoseconds: (to - split).nanoseconds - (atTo - atSplit))
  }

  /// The last change at or before `time` in a time-ordered log, or nil.
  static func last<T>(_ log: [T], at time: SimTime, by changedAt: (T) -> SimTime) -> T? {
    var low = 0
    var high = log.count
    while low < high {
      let mid = (low + high) / 2
      if changedAt(log[mid]) <= time { low = mid + 1 } else { high = mid }
    }
    return low > 0 ? log[low - 1] : nil
  }
}
