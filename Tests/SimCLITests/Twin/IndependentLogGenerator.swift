import Foundation

/// Event logs of a Core Data app with known true values, written by a model of its own that
/// shares no code with SyncSim (issue 78, item 7): saves, exports after a delay, the server
/// refusing exports past a rate with CKError 7 and a retry-after, a push to the other device
/// after a fan-out, held by a background push budget unless the debugger is attached, and the
/// import it starts. Its own random numbers (a 64-bit LCG), its own lognormals, its own clock;
/// it writes the event-log format of `docs/event-log.md` as an app would.
struct IndependentLogGenerator {
  struct Truth {
    var saveRatePerHour = 6.0
    /// Save → export start, lognormal median and sigma (seconds).
    var exportDelay = (median: 1.5, sigma: 0.4)
    var requestSeconds = (median: 0.3, sigma: 0.3)
    var fanout = (median: 2.0, sigma: 0.5)
    var importDelay = (median: 0.2, sigma: 0.3)
    /// Background pushes per hour that wake the app; nil: no budget (the debugger attached).
    var budgetPerHour: Int? = nil
    /// Exports per minute past which the server refuses with CKError 7, and its retry-after.
    var refuseAbovePerMinute: Int? = nil
    var retryAfter = (median: 60.0, sigma: 0.15)
    /// Saves come in bursts: this many saves within `burstSeconds`, `burstsPerDay` times.
    var burst: (saves: Int, seconds: Double, perDay: Int)? = nil
    var days = 2.0
    /// Hours of each day the app is in front, from 8:00 on the iPhone and from 11:00 on the
    /// iPad (so half of the iPhone's saves reach an iPad in the background); in the background
    /// otherwise.
    var frontHours = 6.0
    var frontStarts = [8.0, 11.0]
    /// Hours of each night the iPad is in Low Power Mode (from, to; `to` the next morning), logged
    /// as power lines: a push that comes while it is in the background then is held until the
    /// mode ends, and comes with its import then.
    var lowPowerNights: (from: Double, to: Double)? = nil
  }

  var truth: Truth
  var state: UInt64

  init(truth: Truth, seed: UInt64) {
    self.truth = truth
    state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
  }

  mutating func uniform() -> Double {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return (Double(state >> 11) + 0.5) / 9_007_199_254_740_992
  }

  mutating func normal() -> Double {
    let u = uniform()
    let v = uniform()
    return (-2 * Foundation.log(u)).squareRoot() * cos(2 * Double.pi * v)
  }

  mutating func lognormal(_ p: (median: Double, sigma: Double)) -> Double { p.median * Foundation.exp(p.sigma * normal()) }

  mutating func exponential(_ rate: Double) -> Double { -Foundation.log(uniform()) / rate }

  /// A line of the log: time in seconds from the start, device, and the JSON after them.
  struct Line {
    var time: Double
    var device: String
    var body: String
  }

  /// The log's lines for two devices, `iphone` and `ipad`, of one account, in time order.
  mutating func lines() -> [Line] {
    var out: [Line] = []
    let end = truth.days * 86_400
    let devices = ["iphone", "ipad"]
    func inFront(_ t: Double, _ device: Int) -> Bool {
      let hour = t.truncatingRemainder(dividingBy: 86_400) / 3600
      let (start, end) = (truth.frontStarts[device], truth.frontStarts[device] + truth.frontHours)
      return (hour >= start && hour < end) || hour < end - 24
    }
    /// When the iPad's Low Power Mode that holds `t` ends, or nil when it is not in it.
    func lowPowerEnd(_ t: Double) -> Double? {
      guard let night = truth.lowPowerNights else { return nil }
      let dayStart = (t / 86_400).rounded(.down) * 86_400
      let hour = (t - dayStart) / 3600
      if hour >= night.from { return dayStart + 86_400 + night.to * 3600 }
      if hour < night.to { return dayStart + night.to * 3600 }
      return nil
    }
    if let night = truth.lowPowerNights {
      for day in 0..<Int(truth.days.rounded(.up)) {
        let on = Double(day) * 86_400 + night.from * 3600
        if on < end { out.append(Line(time: on, device: "ipad", body: #""source":"app","event":"power","lowPowerMode":true"#)) }
        let off = Double(day) * 86_400 + night.to * 3600
        if off < end { out.append(Line(time: off, device: "ipad", body: #""source":"app","event":"power","lowPowerMode":false"#)) }
      }
    }
    // App states: to the front at its hour, to the background after `frontHours`.
    for day in 0..<Int(truth.days.rounded(.up)) {
      for (index, device) in devices.enumerated() {
        let front = Double(day) * 86_400 + truth.frontStarts[index] * 3600
        guard front < end else { continue }
        out.append(Line(time: front, device: device, body: #""source":"app","event":"appState","state":"foreground""#))
        let back = front + truth.frontHours * 3600
        if back < end {
          out.append(Line(time: back, device: device, body: #""source":"app","event":"appState","state":"background""#))
        }
      }
    }
    // Saves on each device while in front.
    var saves: [[Double]] = [[], []]
    for (index, _) in devices.enumerated() {
      var t = exponential(truth.saveRatePerHour / 3600)
      while t < end {
        if inFront(t, index) { saves[index].append(t) }
        t += exponential(truth.saveRatePerHour / 3600)
      }
      if let burst = truth.burst {
        for day in 0..<Int(truth.days.rounded(.up)) {
          for k in 0..<burst.perDay {
            let start = Double(day) * 86_400 + (truth.frontStarts[0] + 0.5) * 3600 + Double(k) * (truth.frontHours * 3600 / Double(burst.perDay))
            for _ in 0..<burst.saves where index == 0 { saves[index].append(start + uniform() * burst.seconds) }
          }
        }
      }
      saves[index].sort()
    }
    var exportID = 0
    var budgetUsed: [[Double]] = [[], []]
    var held: [[Double]] = [[], []]
    var heldByLowPower: [Double] = []
    for (index, device) in devices.enumerated() {
      let other = 1 - index
      var recentExports: [Double] = []
      var position = 0
      var exportFree = 0.0
      while position < saves[index].count {
        let save = saves[index][position]
        // The saves until the export starts go with it.
        var start = max(save + lognormal(truth.exportDelay), exportFree)
        var carried = 0
        while position < saves[index].count && saves[index][position] <= start {
          out.append(Line(time: saves[index][position], device: device, body: #""source":"app","event":"save","records":1"#))
          position += 1
          carried += 1
        }
        // Refused past the rate: CKError 7, then the next export after the retry-after.
        while let limit = truth.refuseAbovePerMinute {
          recentExports = recentExports.filter { $0 > start - 60 }
          guard recentExports.count >= limit else { break }
          recentExports.append(start)
          let endRefused = start + lognormal(truth.requestSeconds)
          exportID += 1
          out.append(Line(time: endRefused, device: device, body: Self.coreData("export", exportID, start, endRefused, succeeded: false, records: nil, error: 7)))
          start = endRefused + lognormal(truth.retryAfter)
        }
        recentExports.append(start)
        let finished = start + lognormal(truth.requestSeconds)
        exportID += 1
        out.append(Line(time: finished, device: device, body: Self.coreData("export", exportID, start, finished, succeeded: true, records: carried, error: nil)))
        exportFree = finished
        // The push to the other device, and its import.
        let arrival = finished + lognormal(truth.fanout)
        guard arrival < end else { continue }
        var delivered: Double? = arrival
        if other == 1, !inFront(arrival, other), let release = lowPowerEnd(arrival) {
          heldByLowPower.append(release)
          delivered = nil
        } else if !inFront(arrival, other), let budget = truth.budgetPerHour {
          budgetUsed[other] = budgetUsed[other].filter { $0 > arrival - 3600 }
          if budgetUsed[other].count >= budget {
            // Held: the newest one comes when the app is next in front.
            held[other].append(arrival)
            delivered = nil
          } else {
            budgetUsed[other].append(arrival)
          }
        }
        if let at = delivered {
          out.append(Line(time: at, device: devices[other], body: #""source":"app","event":"push""#))
          let importStart = at + lognormal(truth.importDelay)
          let importEnd = importStart + lognormal(truth.requestSeconds)
          exportID += 1
          out.append(Line(time: importEnd, device: devices[other], body: Self.coreData("import", exportID, importStart, importEnd, succeeded: true, records: carried, error: nil)))
        }
      }
    }
    /// A held push let go at `at`: one push, and the import it starts 0.2 s later.
    func release(_ at: Double, _ device: String) {
      out.append(Line(time: at, device: device, body: #""source":"app","event":"push""#))
      exportID += 1
      out.append(Line(time: at + 0.5, device: device, body: Self.coreData("import", exportID, at + 0.2, at + 0.5, succeeded: true, records: 1, error: nil)))
    }
    // Pushes held by Low Power Mode come when it ends.
    for mode in Set(heldByLowPower).sorted() where mode + 1 < end { release(mode + 1, "ipad") }
    // Held pushes come (the newest kept) when the app is next in front.
    for (index, device) in devices.enumerated() {
      var times: [Double] = []
      for last in held[index] {
        let dayStart = (last / 86_400).rounded(.down) * 86_400
        var next = dayStart + truth.frontStarts[index] * 3600 + 1
        if next < last { next += 86_400 }
        if next < end && times.last != next { times.append(next) }
      }
      for next in times { release(next, device) }
    }
    return out.sorted { $0.time < $1.time }
  }

  static func stamp(_ seconds: Double) -> String {
    // 2026-03-02T00:00:00Z plus seconds, to the microsecond.
    let micro = Int64((seconds * 1e6).rounded())
    let total = micro / 1_000_000
    let fraction = micro % 1_000_000
    let day = 2 + total / 86_400
    let rest = total % 86_400
    func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
    let frac = String(fraction + 1_000_000).dropFirst()
    return "2026-03-\(two(day))T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)).\(frac)Z"
  }

  static func coreData(_ kind: String, _ id: Int, _ start: Double, _ end: Double, succeeded: Bool, records: Int?, error: Int?) -> String {
    var body = #""source":"coreData","event":"\#(kind)","id":"E\#(id)","start":"\#(stamp(start))","end":"\#(stamp(end))","succeeded":\#(succeeded)"#
    if let records { body += #","records":\#(records)"# }
    if let error { body += #","errorDomain":"CKErrorDomain","errorCode":\#(error)"# }
    return body
  }

  /// The log as the event-log format's lines.
  mutating func text() -> String {
    lines().map { line in #"{"time":"\#(Self.stamp(line.time))","device":"\#(line.device)","account":"a",\#(line.body)}"# }
      .joined(separator: "\n") + "\n"
  }

  /// The base scenario a developer writes for it (docs/event-log.md §5): the two devices, named
  /// as in the log, nothing else.
  static let base = """
    {"version": 1, "name": "independent", "duration": "1d", "seed": 1,
     "devices": [{"name": "iphone"}, {"name": "ipad"}]}
    """
}
