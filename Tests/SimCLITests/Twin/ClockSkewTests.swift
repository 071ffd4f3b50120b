import Foundation
import SimTestSupport
import Testing

@testable import SimTwin

/// Devices whose clocks disagree (issue 57: "clock jumps between devices"): found from causality
/// (a push or an import with records follows the export that caused it) and corrected with
/// `--clock-offset`.
@Suite struct ClockSkewTests {
  /// A quickstart run's event log (6 hours), read back.
  static func quickstartLog(in folder: String) throws -> (SyncLog, path: String) {
    let run = try ScenarioRun(library: "quickstart", edits: [], named: "qs", in: folder, "--event-log")
    #expect(run.code == 0, "\(run.err)")
    let path = run.folder + "/event-log.ndjson"
    return (try SyncLogReader.read([path]), path)
  }

  @Test func aDeviceBehindTheOthersIsNamedWithItsOffsetAndTheOffsetCorrectsIt() throws {
    try withTemporaryDirectory { folder in
      let (log, _) = try Self.quickstartLog(in: folder)
      #expect(ClockSkew.findings(SyncTrace(log)).isEmpty)
      let ipad = try #require(log.devices.firstIndex { $0.name == "ipad" })
      for seconds in [5.0, 30, 300] {
        var skewed = log
        skewed.shiftClock(device: ipad, by: Int64(-seconds * 1e6))
        let findings = ClockSkew.findings(SyncTrace(skewed))
        #expect(findings.count == 1 && findings.first?.device == ipad, "\(seconds): \(findings)")
        // The offset, less about a push's fan-out and delivery (seconds).
        let behind = try #require(findings.first?.behindSeconds)
        #expect(behind <= seconds + 0.5 && behind > seconds - 5, "\(seconds): \(behind)")
        var corrected = skewed
        corrected.shiftClock(device: ipad, by: Int64(seconds * 1e6))
        #expect(ClockSkew.findings(SyncTrace(corrected)).isEmpty)
      }
      // The other way round: the iPad ahead is the iPhone behind.
      var ahead = log
      ahead.shiftClock(device: ipad, by: 30_000_000)
      #expect(ClockSkew.findings(SyncTrace(ahead)).map(\.device) == [try #require(log.devices.firstIndex { $0.name == "iphone" })])
    }
  }

  @Test func traceNamesTheDeviceAndTakesTheOffset() throws {
    try withTemporaryDirectory { folder in
      let (_, path) = try Self.quickstartLog(in: folder)
      let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
      // The iPad's lines 20 s early: rewrite each of its times (ISO 8601, the seconds field).
      let formatter = ISO8601DateFormatter()
      formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      var shifted: [String] = []
      for line in lines {
        var text = String(line)
        if text.contains(#""device":"ipad""#) {
          for key in ["time", "start", "end"] {
            guard let range = text.range(of: #""\#(key)":""#), let close = text[range.upperBound...].firstIndex(of: "\"")
            else { continue }
            let value = String(text[range.upperBound..<close])
            let date = try #require(formatter.date(from: value))
            text.replaceSubrange(range.upperBound..<close, with: formatter.string(from: date.addingTimeInterval(-20)))
          }
        }
        shifted.append(text)
      }
      let skewed = folder + "/skewed.ndjson"
      try (shifted.joined(separator: "\n") + "\n").write(toFile: skewed, atomically: true, encoding: .utf8)
      let noted = syncsim("trace", skewed, "--out", folder + "/t1")
      #expect(noted.code == 0, "\(noted.err)")
      #expect(noted.out.contains("ipad's clock is behind by about"), "\(noted.out)")
      #expect(noted.out.contains("--clock-offset ipad="), "\(noted.out)")
      let fixed = syncsim("trace", skewed, "--clock-offset", "ipad=20", "--out", folder + "/t2")
      #expect(fixed.code == 0 && !fixed.out.contains("clock is behind"), "\(fixed.out)")
      #expect(fixed.out.contains("ipad's events moved later by 20.0 s"))
      // The corrected trace is the unshifted one's (to the millisecond the rewrite keeps).
      let original = syncsim("trace", path, "--out", folder + "/t0")
      // Its median and its rows; the p95 may move by 0.01 s, the rewrite's milliseconds.
      let latency = { (out: String) -> [String] in
        let line = out.split(separator: "\n").first { $0.hasPrefix("latency") }.map(String.init) ?? ""
        let words = line.split(separator: " ").map(String.init)
        return [words.count > 2 ? words[2] : ""] + [line.components(separatedBy: "(").last ?? ""]
      }
      #expect(latency(fixed.out) == latency(original.out), "\(fixed.out)\n\(original.out)")
      #expect(latency(original.out)[0] == "4.85s")
      let unknown = syncsim("trace", skewed, "--clock-offset", "watch=3", "--out", folder + "/t3")
      #expect(unknown.code == 65 && unknown.err.contains("no device \"watch\" in the log"), "\(unknown.err)")
      let malformed = syncsim("trace", skewed, "--clock-offset", "ipad", "--out", folder + "/t4")
      #expect(malformed.code == 64 && malformed.err.contains("--clock-offset takes DEVICE=SECONDS"), "\(malformed.err)")
      #expect(!FileManager.default.fileExists(atPath: folder + "/t3") && !FileManager.default.fileExists(atPath: folder + "/t4"))
    }
  }
}
