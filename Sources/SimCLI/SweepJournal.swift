import Foundation
import SimExperiments
import SimMetrics

/// The runs of a sweep (or of its shard) already finished, kept beside its `--out` folder while it
/// runs, so that a sweep killed or preempted and started again runs only what it lacks.
///
/// `DIR.resume/` holds `manifest.txt` (the sweep's identity: its shard manifest, with the scenario
/// file's hash, factors and seeds, and SyncSim's version) and one `run-K.csv` per finished run:
/// its rows of `sweep.csv`, between a first line naming the run and a last line counting its rows.
/// Each file is written under a temporary name and renamed, so none is ever half there under its
/// name; one that does not read back whole, or a folder of another sweep, is not trusted: its runs
/// run again. The folder goes once the sweep's files are written.
final class SweepJournal: @unchecked Sendable {
  let folder: String
  let manifest: String
  let columns: [String]

  /// `out`'s journal for the sweep `manifest` describes, whose rows have `columns`.
  init(out: String, manifest: String, columns: [String]) {
    folder = Self.folder(for: out)
    self.manifest = manifest
    self.columns = columns
  }

  /// Where the journal of a sweep writing to `out` is: `out.resume`.
  static func folder(for out: String) -> String { (out.hasSuffix("/") ? String(out.dropLast()) : out) + ".resume" }

  /// Whether `path` is a journal (what `merge` and `status` find beside shard folders in a glob).
  static func isJournal(_ path: String) -> Bool {
    path.hasSuffix(".resume") && FileManager.default.fileExists(atPath: path + "/manifest.txt")
  }

  /// The finished runs' rows by run index, and a note on what was found (nil: nothing to resume).
  /// A folder of another sweep is emptied.
  func finishedRuns() -> (rows: [Int: [[String]]], note: String?) {
    let manager = FileManager.default
    guard manager.fileExists(atPath: folder) else { return ([:], nil) }
    guard (try? String(contentsOfFile: folder + "/manifest.txt", encoding: .utf8)) == manifest else {
      try? manager.removeItem(atPath: folder)
      return ([:], "\(folder) is of another sweep (or was cut short): it is removed and every run runs")
    }
    var rows: [Int: [[String]]] = [:]
    var distrusted = 0
    for name in (try? manager.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix("run-") {
      guard name.hasSuffix(".csv"), let index = Int(name.dropFirst(4).dropLast(4)),
        let text = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8),
        let runRows = Self.rows(of: text, run: index, columns: columns)
      else {
        distrusted += 1
        continue
      }
      rows[index] = runRows
    }
    let note =
      "resuming from \(folder): \(rows.count) finished run\(rows.count == 1 ? "" : "s") kept"
      + (distrusted > 0 ? ", \(distrusted) file\(distrusted == 1 ? "" : "s") not whole (run again)" : "")
    return (rows, note)
  }

  /// Starts (or keeps) the journal: the folder and its manifest.
  func open() throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/manifest.txt"
    if (try? String(contentsOfFile: path, encoding: .utf8)) != manifest {
      try ScenarioFile.write([("manifest.txt", manifest)], to: folder)
    }
  }

  /// Keeps a finished run's rows (from any thread: each run has its own file).
  func record(run index: Int, rows: [[String]]) {
    var table = CSVTable(columns: columns)
    for row in rows { table.append(row) }
    let text = "# run \(index)\n" + table.text + "# rows \(rows.count)\n"
    // Not `ScenarioFile.write`, which looks for stale temporaries in the folder on every call.
    let final = folder + "/run-\(index).csv"
    guard let temporary = try? ScenarioFile.writeExclusively(Array(text.utf8), beside: final, named: "run-\(index).csv", in: folder)
    else { return }
    if rename(temporary, final) != 0 { unlink(temporary) }
  }

  /// Removes the journal once the sweep's files are written: the runs first, the manifest last,
  /// so that a kill in between leaves a journal whose runs are all whole and its own (one killed
  /// while the folder went, manifest first, left runs that the next attempt distrusted).
  func finish() {
    let manager = FileManager.default
    let names = (try? manager.contentsOfDirectory(atPath: folder)) ?? []
    for name in names where name != "manifest.txt" { unlink(folder + "/" + name) }
    unlink(folder + "/manifest.txt")
    try? manager.removeItem(atPath: folder)
  }

  /// A run file's rows, or nil unless it is whole: its first line names the run, its last counts
  /// the rows between, which have the sweep's columns and this run's point and replication.
  static func rows(of text: String, run index: Int, columns: [String]) -> [[String]]? {
    guard text.hasPrefix("# run \(index)\n"), text.hasSuffix("\n") else { return nil }
    let body = text.dropFirst("# run \(index)\n".count).dropLast()
    guard let last = body.range(of: "\n# rows ", options: .backwards) else { return nil }
    guard let count = Int(body[last.upperBound...]), count > 0,
      let table = CSVTable.parse(String(body[..<last.lowerBound]) + "\n"), table.columns == columns,
      table.rows.count == count
    else { return nil }
    let (point, replication) = (table.rows[0][1], table.rows[0][2])
    guard table.rows.allSatisfy({ $0[1] == point && $0[2] == replication }) else { return nil }
    return table.rows
  }
}
