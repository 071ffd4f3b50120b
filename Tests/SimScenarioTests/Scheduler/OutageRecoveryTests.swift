import Foundation
import SimTestSupport
import Testing

@testable import SimKernel
@testable import SimModel

/// Recovery after a long serviceUnavailable outage (issue 56, item 3): each retry is a new
/// CKScheduler activity counted by dasd's rate limit ([RE]), so a 12-hour outage fills the
/// 24-hour window and holds exports long after the service is back; a client back-off
/// (`cloud.throttleBackoffCap`, [C] peer engines) keeps the window open.
@Suite struct OutageRecoveryTests {
  struct Recovery {
    var runsPerDevice: Int
    var rateLimitHours: Double
    /// The longest save-to-visible latency of a write made after the outage ended.
    var laterWriteLatencyMax: Double
  }

  /// `Scenarios/outage-recovery.json` with an outage of `hours` (from 2 h) and, if given, a back-off cap.
  static func recovery(hours: Int, backoff: String?) throws -> Recovery {
    let end = 2 + hours
    var edits = [
      (#""at": "14h""#, #""at": "\#(end)h""#),
      (#""outputs": ["summary", "latency"]"#, #""outputs": ["summary", "latency", "activities"]"#),
      // Only convergence is expected of every length.
      (#"{"metric": "errors.serviceUnavailable", "min": 1500},"#, ""),
      (#"{"metric": "blocked.rateLimit.total", "min": "10h"},"#, ""),
      (#"{"metric": "blocked.rateLimit.longest", "min": "3h"},"#, ""),
    ]
    if let backoff {
      edits.append((#""seed": 7,"#, #""seed": 7, "cloud": {"throttleBackoffCap": "\#(backoff)"},"#))
    }
    let run = try WorldRun(library: "outage-recovery", edits: edits)
    #expect(run.code == 0, "outage of \(hours) h")
    let endSeconds = Double(end * 3600)
    let activities = try run.table("activities.csv").rows.filter {
      ($0.number("approvedAt") ?? -1) >= 7200 && ($0.number("approvedAt") ?? .infinity) < endSeconds
    }
    let perDevice = Dictionary(grouping: activities, by: { $0["device"] ?? "" }).values.map(\.count).max() ?? 0
    let later = try run.table("latency.csv").rows.filter { ($0.number("editedAt") ?? 0) >= endSeconds }
    let laterMax = later.compactMap { $0.number("latency") }.max() ?? 0
    return Recovery(
      runsPerDevice: perDevice, rateLimitHours: (try run.summary("blocked.rateLimit.total") ?? 0) / 3600,
      laterWriteLatencyMax: laterMax)
  }

  @Test func aTwelveHourOutageFillsTheDaysWindowAndABackoffKeepsItOpen() throws {
    do {
      let oneHour = try Self.recovery(hours: 1, backoff: nil)
      let sixHours = try Self.recovery(hours: 6, backoff: nil)
      let twelveHours = try Self.recovery(hours: 12, backoff: nil)
      let twelveBackoff = try Self.recovery(hours: 12, backoff: "10m")
      // One retry per retry-after (mean 41 s): about 88 activities an hour.
      #expect((70...90).contains(oneHour.runsPerDevice), "\(oneHour.runsPerDevice)")
      #expect((480...540).contains(sixHours.runsPerDevice), "\(sixHours.runsPerDevice)")
      #expect((980...1060).contains(twelveHours.runsPerDevice), "\(twelveHours.runsPerDevice)")
      // The 24-hour window holds 1,080 runs: only the 12-hour outage fills it.
      #expect(oneHour.rateLimitHours == 0 && sixHours.rateLimitHours == 0)
      #expect(oneHour.laterWriteLatencyMax < 600 && sixHours.laterWriteLatencyMax < 600)
      #expect(twelveHours.rateLimitHours > 10, "\(twelveHours.rateLimitHours)")
      #expect(twelveHours.laterWriteLatencyMax > 4 * 3600, "\(twelveHours.laterWriteLatencyMax)")
      // Doubling up to 10 minutes: 75 runs, the window stays open and later writes sync in minutes.
      #expect(twelveBackoff.runsPerDevice < 100, "\(twelveBackoff.runsPerDevice)")
      #expect(twelveBackoff.rateLimitHours == 0)
      #expect(twelveBackoff.laterWriteLatencyMax < 900, "\(twelveBackoff.laterWriteLatencyMax)")
    }
  }

  @Test func theBackoffDoublesFromTheRetryAfterUpToTheCap() {
    let now = SimTime(SimDuration(seconds: 100))
    let retryAfter = SimDuration(seconds: 30)
    let cap = SimDuration(seconds: 600)
    func wait(_ attempt: Int, _ cap: SimDuration?) -> Double {
      (Backoff.throttleRetryAt(after: retryAfter, attempt: attempt, cap: cap, now: now) - now).seconds
    }
    #expect([1, 2, 3, 4, 5, 6].map { wait($0, cap) } == [30, 60, 120, 240, 480, 600])
    #expect([1, 2, 6].map { wait($0, nil) } == [30, 30, 30])
    // A retry-after longer than the cap is still waited in full.
    #expect((Backoff.throttleRetryAt(after: .seconds(900), attempt: 3, cap: cap, now: now) - now).seconds == 900)
  }
}
