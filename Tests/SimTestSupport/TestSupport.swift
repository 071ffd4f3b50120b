import Foundation
import SimCLI

// Helpers shared by the test targets: running the command line in-process, temporary folders,
// and the package's root.

/// Runs `syncsim` in-process with captured output.
public func syncsim(_ arguments: String...) -> (code: Int32, out: String, err: String) {
  syncsim(arguments)
}

/// Runs `syncsim` in-process with captured output.
public func syncsim(_ arguments: [String]) -> (code: Int32, out: String, err: String) {
  let captured = CapturedConsole()
  let code = SyncSimCommand.main(arguments: arguments, console: captured.console)
  return (code, captured.out, captured.err)
}

public func withTemporaryDirectory<T>(_ body: (String) throws -> T) rethrows -> T {
  let path = NSTemporaryDirectory() + "syncsim-test-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
  try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(path)
}

/// Whether the long tests run: the twin's fits of whole logs, a minute of CPU each in a debug
/// build. `swift test` leaves them out so that it stays under three minutes on two cores;
/// `SYNCSIM_LONG_TESTS=1 swift test` runs them too, and CI's `long-tests` step runs them on every
/// submission (`.ci/run`).
public let longTestsEnabled = ProcessInfo.processInfo.environment["SYNCSIM_LONG_TESTS"] == "1"

/// The package root, found from this file's location.
public let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().path

/// A share extension's saves at 0–2 h while the app sleeps (suspended), and the app activated at
/// 3 h: each save waits 1–3 h with no export asked for (issue 54's `exportHeld.suspended`).
public let extensionSavesScenario = #"""
  {"version": 1, "name": "extension", "duration": "4h",
   "devices": [{"name": "iphone", "appState": "suspended"}, {"name": "ipad"}],
   "workloads": [{"devices": "iphone", "editsPerHour": 6, "foregroundOnly": false, "source": "extension", "until": "2h"}],
   "timeline": [{"at": "3h", "devices": "iphone", "action": "activate"}],
   "outputs": ["summary", "latency", "activities"]}
  """#

/// A scenario of `count` devices on one `store` ("public" or "private"), each writing
/// `editsPerHour` with 40 % inserts and `deleteShare` deletes, over `duration`, summary only: the
/// public-database authors of issue 53's item 12 and the estimate's time tests.
public func authorsScenarioText(
  name: String = "authors", duration: String, store: String = "public", count: Int = 2, editsPerHour: Double,
  deleteShare: Double = 0.4
) -> String {
  let devices = (0..<count).map { "{\"name\": \"d\($0)\", \"stores\": [\"\(store)\"]}" }.joined(separator: ", ")
  return """
    {"version": 1, "name": "\(name)", "seed": 3, "duration": "\(duration)", "environment": "development",
     "polling": {"clock": "wallClock"}, "devices": [\(devices)],
     "workloads": [{"devices": "all", "editsPerHour": \(editsPerHour), "insertShare": 0.4, "deleteShare": \(deleteShare)}],
     "outputs": ["summary"]}
    """
}
