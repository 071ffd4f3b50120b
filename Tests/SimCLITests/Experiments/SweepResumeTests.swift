import Foundation
import SimMetrics
import SimTestSupport
import Testing

@testable import SimCLI

/// Issue 59, item 2: a sweep started again over a killed attempt keeps the runs that attempt
/// finished (`DIR.resume/`), runs only the others, and writes what one uninterrupted sweep writes;
/// a run file that is not whole, or a journal of another sweep, is not trusted.
@Suite struct SweepResumeTests {
  static let arguments = [
    "sweep", packageRoot + "/Scenarios/push-drop-sweep.json", "--set", "duration=2h", "--seeds", "1..3", "--jobs", "2",
  ]

  /// The journal a killed attempt at `out` would have left: the manifest, and `runs` (by index)
  /// with their rows from the whole sweep's `sweep.csv`.
  func journal(for out: String, runs: [Int], from whole: String) throws -> SweepJournal {
    var args = ArgumentList(Array(Self.arguments.dropFirst()) + ["--out", out])
    let options = try SweepCommand.parse(&args, environment: [:])
    guard case .success(let prepared) = SweepCommand.prepare(options, console: CapturedConsole().console) else {
      throw UsageError("prepare failed")
    }
    let total = prepared.runner.runs(defaultSeed: prepared.scenario.spec.seed).count
    let table = try #require(CSVTable.parse(try String(contentsOfFile: whole + "/sweep.csv", encoding: .utf8)))
    let journal = SweepJournal(
      out: out, manifest: SweepCommand.journalManifest(prepared, options, total: total), columns: table.columns)
    try journal.open()
    for run in runs {
      // Run k = point × seeds + replication.
      let rows = table.rows.filter { Int($0[1])! * 3 + Int($0[2])! == run }
      journal.record(run: run, rows: rows)
    }
    return journal
  }

  @Test func keptRunsAreNotRunAgainAndTheFilesAreTheWholeSweeps() throws {
    try withTemporaryDirectory { directory in
      let whole = directory + "/whole"
      #expect(syncsim(Self.arguments + ["--out", whole]).code == 0)
      let out = directory + "/resumed"
      let journal = try journal(for: out, runs: [0, 4, 7, 11], from: whole)
      // Run 11's file cut in half (a disk that lost its tail): run again, not trusted.
      let cut = journal.folder + "/run-11.csv"
      let text = try String(contentsOfFile: cut, encoding: .utf8)
      try String(text.prefix(text.count / 2)).write(toFile: cut, atomically: false, encoding: .utf8)
      let resumed = syncsim(Self.arguments + ["--out", out])
      #expect(resumed.code == 0)
      #expect(resumed.err.contains("3 finished runs kept, 1 file not whole (run again)"), "\(resumed.err)")
      #expect(resumed.out.contains("3 of them kept from the killed attempt"), "\(resumed.out)")
      for file in ["sweep.csv", "sweep-summary.csv", "datapackage.json", "points/point-0001/resolved.json"] {
        #expect(
          try Data(contentsOf: URL(fileURLWithPath: out + "/" + file))
            == Data(contentsOf: URL(fileURLWithPath: whole + "/" + file)), "\(file)")
      }
      #expect(!FileManager.default.fileExists(atPath: journal.folder), "the journal goes once the files are written")
    }
  }

  /// A kept run is taken from its file, not run again: a value changed in it reaches sweep.csv.
  @Test func aKeptRunIsReadNotRecomputed() throws {
    try withTemporaryDirectory { directory in
      let whole = directory + "/whole"
      #expect(syncsim(Self.arguments + ["--out", whole]).code == 0)
      let out = directory + "/resumed"
      let journal = try journal(for: out, runs: [5], from: whole)
      let path = journal.folder + "/run-5.csv"
      let text = try String(contentsOfFile: path, encoding: .utf8)
      // Columns: scenario, point, replication, seed, the two factors, metric, value, ...
      let row = try #require(text.split(separator: "\n").first { $0.contains(",writes,") })
      let fields = row.split(separator: ",", omittingEmptySubsequences: false)
      let changed = fields.enumerated().map { $0.offset == 7 ? "424242" : String($0.element) }.joined(separator: ",")
      try text.replacingOccurrences(of: String(row), with: changed).write(toFile: path, atomically: true, encoding: .utf8)
      #expect(syncsim(Self.arguments + ["--out", out]).code == 0)
      let merged = try String(contentsOfFile: out + "/sweep.csv", encoding: .utf8)
      #expect(merged.contains(",writes,424242,"), "the kept run's value is the file's")
    }
  }

  /// A journal of another sweep (other seeds) is removed, and every run runs.
  @Test func aJournalOfAnotherSweepIsNotTrusted() throws {
    try withTemporaryDirectory { directory in
      let whole = directory + "/whole"
      #expect(syncsim(Self.arguments + ["--out", whole]).code == 0)
      let out = directory + "/resumed"
      _ = try journal(for: out, runs: [0, 1], from: whole)
      var other = Self.arguments
      other[other.firstIndex(of: "1..3")!] = "4..6"
      let result = syncsim(other + ["--out", out])
      #expect(result.code == 0)
      #expect(result.err.contains("is of another sweep"), "\(result.err)")
      #expect(!result.out.contains("kept from the killed attempt"))
      #expect(!FileManager.default.fileExists(atPath: out + ".resume"))
    }
  }

  @Test func runFilesAreWholeOrNothing() {
    let columns = ["scenario", "point", "replication", "seed", "metric", "value"]
    let whole = "# run 4\nscenario,point,replication,seed,metric,value\ns,1,1,2,writes,3\ns,1,1,2,rows,9\n# rows 2\n"
    #expect(SweepJournal.rows(of: whole, run: 4, columns: columns)?.count == 2)
    #expect(SweepJournal.rows(of: whole, run: 5, columns: columns) == nil, "another run's file")
    #expect(SweepJournal.rows(of: String(whole.dropLast(3)), run: 4, columns: columns) == nil, "cut")
    #expect(SweepJournal.rows(of: whole.replacingOccurrences(of: "# rows 2", with: "# rows 3"), run: 4, columns: columns) == nil)
    #expect(SweepJournal.rows(of: whole.replacingOccurrences(of: "s,1,1,2,rows", with: "s,2,1,2,rows"), run: 4, columns: columns) == nil)
    #expect(SweepJournal.rows(of: whole, run: 4, columns: columns + ["x"]) == nil)
  }
}
