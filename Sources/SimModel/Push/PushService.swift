import SimKernel

/// The push service (APNs) and the device's share of it: sending with coalescing and loss,
/// storage for an offline device, holding and deferral (newest kept), and the device-wide
/// background budget shared with other apps (spec §7).
///
/// It decides and keeps the books; the world routes a push to the app and reports what happened.
/// Each device's mailbox lives in the device's state and is passed in.
struct PushService {
  let parameters: PushParameters
  /// Per device: the start times of background push wakes (this app's and, admitted against the
  /// same budget, the other apps').
  var wakes: [[SimTime]] = []
  /// Per device with other apps that receive pushes: their pushes' state. A lookup by device
  /// only (its order never reaches a result).
  var otherApps: [Int: OtherAppsPushes] = [:]

  init(_ parameters: PushParameters) {
    self.parameters = parameters
  }

  /// Adds the next device: no wakes yet.
  mutating func addDevice() { wakes.append([]) }

  /// What became of a push sent to a device.
  enum Sending: Equatable {
    /// Within the coalescing window of the last one: not sent.
    case coalesced
    /// Sent and lost.
    case dropped
    /// Sent; it reaches the device after this long.
    case arrives(after: SimDuration)
  }

  /// Sends a push to the device of `mailbox` now, drawing loss and fan-out latency from `random`.
  /// `mutating`, though it changes nothing here, so that `PushHost` calls it in place (through
  /// `modify`): through `get` every push copied the whole service.
  mutating func send(_ mailbox: inout PushMailbox, now: SimTime, random: inout RandomStream) -> Sending {
    if parameters.coalescingWindow > .zero && now - mailbox.lastSentAt < parameters.coalescingWindow {
      return .coalesced
    }
    mailbox.lastSentAt = now
    if parameters.dropProbability > 0 && random.bernoulli(parameters.dropProbability) { return .dropped }
    return .arrives(after: parameters.fanoutLatency.sampleDuration(using: &random) + parameters.deliveryLatency)
  }

  /// Keeps `zone` in `slot`, the newest push winning; true when an older one was discarded.
  static func keepNewest(_ zone: ZoneID, in slot: inout ZoneID) -> Bool {
    let discarded = slot.exists
    slot = zone
    return discarded
  }

  /// Stores a push for the offline device (one per app, the newest); true when an older one was
  /// discarded.
  func store(_ zone: ZoneID, in mailbox: inout PushMailbox, at now: SimTime) -> Bool {
    mailbox.storedAt = now
    return Self.keepNewest(zone, in: &mailbox.storedZone)
  }

  /// The stored push, taken out when the device comes back online: its zone, and whether it has
  /// expired (`offlineStorage`); nil when none is stored.
  func takeStored(from mailbox: inout PushMailbox, at now: SimTime) -> (zone: ZoneID, expired: Bool)? {
    let zone = mailbox.storedZone
    guard zone.exists else { return nil }
    mailbox.storedZone = .none
    return (zone, now - mailbox.storedAt > parameters.offlineStorage)
  }

  /// Whether one more background push may wake the app of `device` now: the device-wide budgets,
  /// per sliding hour and per day of the run, which the other apps' pushes spend too (played up to
  /// now first); none with a debugger attached. The device is online and not saving power.
  mutating func withinBudget(_ device: Int, conditions: DeviceConditions, at now: SimTime) -> Bool {
    if conditions.debuggerAttached { return true }
    playOtherApps(device, conditions: conditions, offline: false, restricted: false, to: now)
    return fitsBudget(device, at: now)
  }

  /// Plays the other apps' pushes up to `now` under the device's state since they were last
  /// played: offline, APNs keeps the newest; saving power, it defers the newest; otherwise each
  /// spends the budget if it fits (or is held). A released push waiting for this app's is
  /// admitted once its time has passed.
  mutating func playOtherApps(
    _ device: Int, conditions: DeviceConditions, offline: Bool, restricted: Bool, to now: SimTime
  ) {
    guard conditions.otherAppsBackgroundPushesPerHour > 0, !conditions.debuggerAttached else { return }
    let period = SimDuration(seconds: 3600 / conditions.otherAppsBackgroundPushesPerHour)
    var state = otherApps[device] ?? OtherAppsPushes(nextAt: SimTime.zero + period)
    if let at = state.admitAfterOwnAt, at < now {
      state.admitAfterOwnAt = nil
      admitOtherApps(device, at: at)
    }
    while state.nextAt <= now {
      if offline {
        state.storedAt = state.nextAt
      } else if restricted {
        state.deferredAt = state.nextAt
      } else {
        admitOtherApps(device, at: state.nextAt)
      }
      state.nextAt = state.nextAt + period
    }
    otherApps[device] = state
  }

  /// One of the other apps' pushes wakes its app at `time` if the budget allows (else it is held).
  mutating func admitOtherApps(_ device: Int, at time: SimTime) {
    if fitsBudget(device, at: time) { wakes[device].append(time) }
  }

  /// The device came back online (`stored`) or stopped saving power: the other apps' kept push,
  /// if any, arrives at `arrival`, admitted before this app's released push when APNs received it
  /// first (`ownReceivedAt`, nil when this app has none), after it otherwise. An expired stored
  /// push is dropped.
  mutating func releaseOtherApps(
    _ device: Int, stored: Bool, arrival: SimTime, ownReceivedAt: SimTime?, now: SimTime
  ) {
    guard var state = otherApps[device] else { return }
    let received = stored ? state.storedAt : state.deferredAt
    if stored { state.storedAt = nil } else { state.deferredAt = nil }
    if let received, !(stored && now - received > parameters.offlineStorage) {
      if let ownReceivedAt, ownReceivedAt < received {
        state.admitAfterOwnAt = arrival
      } else {
        admitOtherApps(device, at: arrival)
      }
    }
    otherApps[device] = state
  }

  /// This app's released push has been decided: a released push of the other apps received after
  /// it is admitted now.
  mutating func admitOtherAppsAfterOwn(_ device: Int, at now: SimTime) {
    guard let at = otherApps[device]?.admitAfterOwnAt, at <= now else { return }
    otherApps[device]?.admitAfterOwnAt = nil
    admitOtherApps(device, at: at)
  }

  /// Whether a wake at `time` fits the hourly and daily budgets, given the wakes before it.
  mutating func fitsBudget(_ device: Int, at time: SimTime) -> Bool {
    let day = Int64(86_400_000_000_000)
    let dayStart = SimTime(nanoseconds: time.nanoseconds / day * day)
    let hourAgo = time.advanced(by: .seconds(-3600))
    // Wakes older than both windows no longer count.
    let daily = parameters.backgroundBudgetPerDay
    let horizon = daily == nil ? hourAgo : min(hourAgo, SimTime(nanoseconds: dayStart.nanoseconds - 1))
    wakes[device].removeAll { $0 <= horizon }
    if wakes[device].lazy.filter({ $0 > hourAgo }).count >= parameters.backgroundBudgetPerHour { return false }
    if let daily, wakes[device].lazy.filter({ $0 >= dayStart }).count >= daily { return false }
    return true
  }

  /// Counts a background wake of `device`'s app against the budget.
  mutating func recordWake(_ device: Int, at now: SimTime) { wakes[device].append(now) }
}
