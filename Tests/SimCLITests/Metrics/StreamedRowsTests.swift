import Foundation
import SimMetrics
import SimScenario
import SimTestSupport
import Testing

@testable import SimCLI

/// Issue 19: `run` writes a fleet's latency.csv, activities.csv and objects.csv part by part as
/// the parts finish, and lets each part go; the files are the bytes the report makes in memory.
@Suite struct StreamedRowsTests {
  static let fleet = #"""
    {
      "version": 1, "name": "streamed", "seed": 5, "duration": "6h", "accounts": 41,
      "devices": [
        {"name": "a", "count": 40, "account": "perDevice"},
        {"name": "b", "count": 40, "account": "perDevice", "appState": "background"},
        {"name": "c", "account": 40}
      ],
      "workloads": [{"devices": "all", "editsPerHour": 12}],
      "timeline": [{"at": "1h", "devices": "all", "action": "goOffline"}, {"at": "2h", "devices": "all", "action": "goOnline"}],
      "outputs": ["summary", "latency", "activities", "objects"]
    }
    """#

  @Test func rowsWrittenAsPartsFinishAreTheReportsBytes() throws {
    let scenario = try ScenarioDecoder.decode(Array(Self.fleet.utf8), file: "f.json").0
    let report = ScenarioRunner.run(scenario, jobs: 1)
    #expect(report.spilled.isEmpty && report.parts.count == 41)
    let expected = report.files(version: SyncSimCommand.version, includeTrace: false)
    #expect(expected.first { $0.name == "latency.csv" }!.text.count > 100_000)
    try withTemporaryDirectory { directory in
      let path = directory + "/f.json"
      try Self.fleet.write(toFile: path, atomically: true, encoding: .utf8)
      for (jobs, batch) in [("1", "1"), ("2", "512"), ("3", "7")] {
        let out = directory + "/out-\(jobs)-\(batch)"
        let result = syncsim(["run", path, "--out", out, "--jobs", jobs, "--batch-devices", batch])
        #expect(result.code == 0, "\(result.err)")
        for file in expected {
          let written = try String(contentsOfFile: out + "/" + file.name, encoding: .utf8)
          #expect(written == file.text, "\(file.name) with --jobs \(jobs) --batch-devices \(batch)")
        }
        // Nothing is left beside the results (the staging folder was swapped in).
        let siblings = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!siblings.contains { $0.contains(".tmp-") })
      }
    }
  }

  /// With the part-by-part streams in place, the run keeps no part.
  @Test func aRunThatStreamsItsRowsKeepsNoPart() throws {
    let scenario = try ScenarioDecoder.decode(Array(Self.fleet.utf8), file: "f.json").0
    var bytes: [String: Int] = [:]
    var streams: [CSVStream] = []
    let report = ScenarioRunner.run(
      scenario, jobs: 2,
      spill: { name, columns in
        let stream = CSVStream(columns: columns) { chunk in bytes[name, default: 0] += chunk.count }
        streams.append(stream)
        return stream
      })
    for stream in streams { try stream.finish() }
    #expect(report.parts.isEmpty)
    #expect(report.spilled == ["latency.csv", "activities.csv", "objects.csv"])
    let full = ScenarioRunner.run(scenario, jobs: 2)
    for file in full.files(version: "x", includeTrace: false) where report.spilled.contains(file.name) {
      #expect(bytes[file.name] == file.text.utf8.count, "\(file.name)")
    }
    #expect(report.fingerprint == full.fingerprint)
  }
}
