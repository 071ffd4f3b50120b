/// Devices whose clocks disagree, found from causality: a push, or an import that brought
/// records, follows the export on another device of its account that caused it. On one clock the
/// gap from the latest such export to the arrival is never negative; when most of a device's
/// arrivals come shortly before the nearest export of the others instead, that device's clock is
/// behind theirs (and its rows with them are wrong by as much).
///
/// `SyncLog.shiftClock` corrects a device by a known offset (`--clock-offset`).
public enum ClockSkew {
  /// A device whose arrivals precede their causes.
  public struct Finding: Sendable, Equatable {
    public var device: Int
    /// Arrivals checked (pushes, and imports that brought records) and those that came before
    /// the nearest export of the others.
    public var arrivals: Int
    public var early: Int
    /// How far behind the device's clock is, about: the offset that, added to its arrivals, puts
    /// the most of them shortly after an export of the others (seconds).
    public var behindSeconds: Double
  }

  /// An arrival further than this from every export of the others says nothing.
  static let windowMicroseconds: Int64 = 600_000_000
  /// The fewest early arrivals that make a finding, and the share of the arrivals they must be.
  static let leastEarly = 3
  static let leastShare = 0.5

  /// The devices of `trace` whose clocks are behind the others' of their account.
  public static func findings(_ trace: SyncTrace) -> [Finding] {
    var found: [Finding] = []
    for device in trace.devices.indices {
      let account = trace.devices[device].account
      let causes = trace.activities.compactMap { activity -> Int64? in
        guard activity.work == .export, activity.succeeded, activity.device != device,
          trace.devices[activity.device].account == account, activity.records != 0
        else { return nil }
        return activity.finishedAt
      }.sorted()
      guard !causes.isEmpty else { continue }
      var arrivals = trace.pushes.filter { $0.device == device }.map(\.arrival)
      arrivals += trace.activities.compactMap { activity in
        activity.work == .import && activity.device == device && activity.succeeded && (activity.records ?? 0) > 0
          ? activity.finishedAt : nil
      }
      var checked = 0
      var early: [Int64] = []
      for arrival in arrivals {
        let after = causes.partitionIndex { $0 > arrival }
        let before = after > 0 ? arrival - causes[after - 1] : Int64.max
        let ahead = after < causes.count ? causes[after] - arrival : Int64.max
        guard min(before, ahead) <= windowMicroseconds else { continue }
        checked += 1
        if ahead < before { early.append(ahead) }
      }
      guard early.count >= leastEarly, Double(early.count) >= leastShare * Double(checked) else { continue }
      found.append(
        Finding(
          device: device, arrivals: checked, early: early.count,
          behindSeconds: Double(offset(arrivals, causes: causes, candidates: early)) / 1e6))
    }
    return found
  }

  /// How long after its cause an arrival may come on one clock (a push's fan-out and delivery, an
  /// import's wait and fetch), for the offset's search.
  static let causeToArrivalMicroseconds: Int64 = 30_000_000

  /// The offset that explains the most arrivals: moved later by it, the most of them have a cause
  /// within `causeToArrivalMicroseconds` before them (the least such offset among the best). The
  /// candidates are the early arrivals' distances to the next cause, at most 256 of them.
  static func offset(_ arrivals: [Int64], causes: [Int64], candidates: [Int64]) -> Int64 {
    let sorted = candidates.sorted()
    let step = max(1, sorted.count / 256)
    var best = (explained: -1, offset: Int64(0))
    for index in stride(from: 0, to: sorted.count, by: step) {
      let offset = sorted[index]
      var explained = 0
      for arrival in arrivals {
        let moved = arrival + offset
        let after = causes.partitionIndex { $0 > moved }
        if after > 0 && moved - causes[after - 1] <= causeToArrivalMicroseconds { explained += 1 }
      }
      if explained > best.explained { best = (explained, offset) }
    }
    return best.offset
  }

  /// The finding as a note for the terminal and the report.
  public static func remark(_ finding: Finding, devices: [SyncLog.Device]) -> String {
    let name = devices[finding.device].name
    let seconds = (finding.behindSeconds * 10).rounded(.up) / 10
    return "\(finding.early) of \(finding.arrivals) pushes and imports on \(name) arrive before the export on another "
      + "device that caused them: \(name)'s clock is behind by about \(seconds) s, and its rows with the "
      + "others are off by as much; give --clock-offset \(name)=\(seconds) to move its events later"
  }
}
