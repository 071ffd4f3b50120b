import Foundation
import SimKernel
import SimMetrics

/// The shards of one run (`syncsim run --shard I/N`, all N), added up into the files the
/// unsharded run writes, byte for byte: the summary from the shards' tallies added in shard order
/// (every sum exact, the latencies merged as the run merges its parts), the fingerprint folded
/// over every part's in part order, and the per-row files concatenated in shard order with their
/// write and activity ids shifted by the shards before.
public struct RunShardMerge {
  /// A shard's folder and its `run-shard.txt`.
  public struct Shard {
    public let directory: String
    public let file: RunShardFile
  }

  /// Every problem found in the shard folders; when shards are missing, which, with the shards
  /// given (index and folder) and their command line, for `merge` to say how to run the others.
  public struct Problems: Error {
    public let messages: [String]
    public var missing: [RunShard] = []
    public var given: [(index: Int, directory: String)] = []
    public var command: String?
  }

  /// The shards, in shard order.
  public let shards: [Shard]
  /// The run's scenario, read from the first shard's `resolved.json`.
  public let scenario: Scenario
  /// The shards a partial merge lacks (`merge --partial`), in order; empty for a whole merge.
  public var missing: [Int] = []

  /// The per-row files a shard may hold, and the id columns `merge` shifts in each.
  static let idColumns: [(file: String, writes: [String], activities: [String])] = [
    ("latency.csv", ["write"], []), ("activities.csv", [], ["activity"]),
    ("objects.csv", ["write", "serverWrite"], []),
  ]

  /// Reads every folder's `run-shard.txt` and checks that they are all the shards of one run
  /// (scenario, its hash, seed, syncsim version and shard plan), each once, none missing (with
  /// `partial`, some may be: the merge is then of those there, and says so).
  public static func read(_ directories: [String], partial: Bool = false) -> Result<RunShardMerge, Problems> {
    var problems: [String] = []
    var shards: [Shard] = []
    for directory in directories {
      let path = directory + "/" + RunShardFile.name
      guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
        problems.append("\(directory): no \(RunShardFile.name) (not a folder written by run --shard)")
        continue
      }
      switch RunShardFile.read(text) {
      case .failure(let problem): problems.append("\(path): \(problem.message)")
      case .success(let file): shards.append(Shard(directory: directory, file: file))
      }
    }
    guard let first = shards.first else { return .failure(Problems(messages: problems)) }
    for shard in shards.dropFirst() {
      let (a, b) = (first.file, shard.file)
      var differing: [String] = []
      if a.scenario != b.scenario { differing.append("scenario \(a.scenario) vs \(b.scenario)") }
      if a.scenarioHash != b.scenarioHash { differing.append("scenarioHash \(a.scenarioHash) vs \(b.scenarioHash)") }
      if a.seed != b.seed { differing.append("seed \(a.seed) vs \(b.seed)") }
      if a.version != b.version { differing.append("syncsim \(a.version) vs \(b.version)") }
      if a.shard.count != b.shard.count || a.partCount != b.partCount {
        differing.append(
          "\(a.shard.count) shards of \(a.partCount) parts vs \(b.shard.count) shards of \(b.partCount) parts")
      }
      if !differing.isEmpty {
        problems.append("\(shard.directory): a shard of another run (\(differing.joined(separator: "; ")))")
      }
    }
    var seen = Set<Int>()  // membership only
    for shard in shards where !seen.insert(shard.file.shard.index).inserted {
      problems.append("\(shard.directory): shard \(shard.file.shard.text) given twice")
    }
    let count = first.file.shard.count
    let missing = (1...max(1, count)).filter { !seen.contains($0) }
    let lacksShards = !missing.isEmpty && problems.isEmpty && !partial
    if lacksShards {
      problems.append("missing shards: \(missing.map { "\($0)/\(count)" }.joined(separator: ", "))")
    }
    for shard in shards where shard.file.parts != shard.file.shard.parts(of: shard.file.partCount) {
      problems.append("\(shard.directory): parts \(shard.file.parts) are not shard \(shard.file.shard.text)'s")
    }
    let ordered = shards.sorted { $0.file.shard.index < $1.file.shard.index }
    for (name, _, _) in idColumns {
      let holding = ordered.filter { FileManager.default.fileExists(atPath: $0.directory + "/" + name) }
      if !holding.isEmpty && holding.count != ordered.count {
        problems.append("\(name) is in \(holding.count) of the \(ordered.count) shards")
      }
    }
    if problems.isEmpty { problems += numberProblems(ordered) }
    if problems.isEmpty { problems += rowFileProblems(ordered) }
    let scenario = loadScenario(ordered.first!.directory, shard: ordered.first!.file.shard)
    if case .failure(let problem) = scenario { problems.append(problem.message) }
    guard problems.isEmpty, case .success(let loaded) = scenario else {
      var found = Problems(messages: problems)
      if lacksShards {
        found.missing = missing.map { RunShard(index: $0, count: count) }
        found.given = ordered.map { ($0.file.shard.index, $0.directory) }
        found.command = ordered.lazy.compactMap(\.file.command).first
      }
      return .failure(found)
    }
    return .success(RunShardMerge(shards: ordered, scenario: loaded, missing: missing))
  }

  /// The lines of `run-shard.txt` whose values add up across shards (counts; a 128-bit sum for
  /// `stageSums`), and which of their values are sums (nil: every value). Durations saturate as
  /// they add, and maxima and minima do not add, so those are range-checked only.
  static let summedLines: [String: [Int]?] = [
    "events": nil, "rows": nil, "accounting": nil, "activities": nil, "requests": nil, "pushes": nil,
    "cloudErrors": nil, "edits": nil, "blockedCount": nil, "finalState": nil, "latency.count": nil,
    "latency.histogram": nil, "partWrites": nil, "partActivities": nil, "retryAfter": [0], "orphans": [0],
    "latency.sum": [0],
  ]
  /// Lines of durations and times: each value non-negative.
  static let durationLines: Set<String> = [
    "lastEditAt", "lastStoreChangeAt", "retryAfter", "orphans", "blockedTotal", "blockedLongest", "endTime",
  ]

  /// A run shard's checkpoint (`RunShardJournal`): every summed or duration value within
  /// 0..<2^62 (a counter's value in `finalState` within ±2^62), the 128-bit sums within 0..<2^119,
  /// so that the rest of the run adds to them without passing 64 (128) bits, and its latency
  /// samples as a shard's; nil when all hold, else the first that does not.
  public static func checkpointProblem(_ text: TallyText) -> String? {
    let bound: Int64 = 1 << 62
    if let problem = LatencySample.problem(in: text) { return problem }
    if let problem = LatencySample.problem(in: text, prefix: "censored") { return problem }
    for key in text.keys {
      guard let fields = text.fields(key) else { continue }
      let wide: [Int]? =
        switch key {
        case "stageSums": Array(fields.indices)
        case "progress.causes": Array(stride(from: 1, to: fields.count, by: 2))
        default: nil
        }
      if let wide {
        for index in wide {
          guard let value = Int128(String(fields[index])), value >= 0, value < Int128(1) << 119 else {
            return "line \(key): \(fields[index]), outside 0..<2^119"
          }
        }
        continue
      }
      // Counts add with trapping arithmetic: below 2^62. Durations saturate as they add: any
      // non-negative value (a saturated total is 2^63 − 1).
      let summed: [Int] =
        key == "progress.outcome" ? [0].filter { $0 < fields.count }
        : summedLines[key].map { $0 ?? Array(fields.indices) } ?? []
      let durations: [Int] =
        key == "progress.outcome" ? [2].filter { $0 < fields.count }
        : durationLines.contains(key) ? Array(fields.indices) : []
      for index in Set(summed + durations).sorted() where !(key == "latency.sum" && index == 1) {
        guard let value = Int64(fields[index]) else { return "line \(key): \(fields[index]), not a 64-bit whole number" }
        let floor = key == "finalState" && index == 2 ? -bound : 0
        guard value >= floor, value < bound || !summed.contains(index) else {
          return "line \(key): \(value), outside 0..<2^62"
        }
      }
    }
    return nil
  }

  /// Every number of every shard's file in its range, and every sum the merge takes within 64
  /// bits (128 for `stageSums`): a hostile or corrupt shard is refused, naming its line, before
  /// any arithmetic could trap on it.
  static func numberProblems(_ shards: [Shard]) -> [String] {
    var problems: [String] = []
    var sums: [String: [Double]] = [:]  // lookup only
    var largest: [String: (value: Double, shard: String)] = [:]  // lookup only
    for shard in shards {
      let where_ = "\(shard.directory)/\(RunShardFile.name)"
      let text = shard.file.text
      if let problem = LatencySample.problem(in: text) { problems.append("\(where_): \(problem)") }
      if let problem = LatencySample.problem(in: text, prefix: "censored") { problems.append("\(where_): \(problem)") }
      for key in text.keys {
        guard let fields = text.fields(key) else { continue }
        if key == "stageSums" {
          for field in fields {
            guard let value = Int128(String(field)), value >= 0, value < Int128(1) << 120 else {
              problems.append("\(where_): line stageSums holds \(field), outside 0..<2^120")
              break
            }
          }
          continue
        }
        guard summedLines[key] != nil || durationLines.contains(key) else { continue }
        let indices = summedLines[key].map { $0 ?? Array(fields.indices) } ?? []
        for (index, field) in fields.enumerated() {
          if key == "latency.sum" && index == 1 { continue }  // the low 64 bits, unsigned
          guard let value = Int64(field) else {
            problems.append("\(where_): line \(key) holds \(field), not a 64-bit whole number")
            break
          }
          let mayBeNegative = key == "finalState" && index == 2  // a counter's value
          if value < 0 && !mayBeNegative {
            problems.append("\(where_): line \(key) holds \(value), below 0")
            break
          }
          if indices.contains(index) {
            var list = sums[key] ?? Array(repeating: 0, count: fields.count)
            if index < list.count { list[index] += abs(Double(value)) }
            sums[key] = list
            if abs(Double(value)) > largest[key]?.value ?? -1 { largest[key] = (abs(Double(value)), where_) }
          }
        }
      }
    }
    for key in sums.keys.sorted() where sums[key]!.contains(where: { $0 >= 9.2e18 }) {
      problems.append(
        "line \(key) adds up past 64 bits across the shards; the largest is in \(largest[key]?.shard ?? "?") "
          + "(a shard's file is corrupt)")
    }
    return problems
  }

  /// Each shard's per-row files against its manifest (rows, bytes, digest), and every id column
  /// within the shard's own writes or activities: a file cut short by an interrupted copy, a
  /// deleted or edited row, is refused naming the shard, the file and the line.
  static func rowFileProblems(_ shards: [Shard]) -> [String] {
    var problems: [String] = []
    for shard in shards {
      for (name, writes, activities) in idColumns {
        let path = shard.directory + "/" + name
        let listed = shard.file.files.first { $0.name == name }
        guard FileManager.default.fileExists(atPath: path) else {
          if listed != nil { problems.append("\(path): missing, though the shard's manifest lists it") }
          continue
        }
        guard let listed else {
          problems.append("\(path): not in the shard's manifest (\(RunShardFile.name)); run the shard again")
          continue
        }
        guard let found = RunShardFile.FileEntry.of(path, name: name) else {
          problems.append("\(path): cannot be read")
          continue
        }
        if found != listed {
          problems.append(
            "\(path): \(found.rows) rows, \(found.bytes) bytes, digest \(found.digest); the shard wrote \(listed.rows) "
              + "rows, \(listed.bytes) bytes, digest \(listed.digest) (cut short or edited on its way: copy the shard "
              + "again, or run it again)")
          continue
        }
        guard let csv = MappedCSV(path: path) else {
          problems.append("\(path): cannot be read")
          continue
        }
        let header = csv.columns
        // Write ids count from 1, activity ids from 0, as the run numbers them.
        let limits: [(column: Int, ids: ClosedRange<Int>)] = header.indices.compactMap { index in
          writes.contains(header[index])
            ? (index, 1...max(1, shard.file.writes))
            : activities.contains(header[index]) ? (index, 0...max(0, shard.file.activities - 1)) : nil
        }
        var cursor = csv.cursor()
        var malformed = false
        var line = 1
        rows: while let row = cursor.next(malformed: &malformed) {
          line += 1
          for (column, ids) in limits where column < row.count && !row[column].isEmpty {
            guard let id = Int(row[column]), ids.contains(id) else {
              problems.append(
                "\(path): line \(line): \(header[column]) \(row[column]) is not an id of this shard "
                  + "(\(ids.lowerBound)...\(ids.upperBound))")
              break rows
            }
          }
        }
        if malformed { problems.append("\(path): line \(line + 1): a malformed row") }
      }
    }
    return problems
  }

  /// The scenario of a shard's `resolved.json` (its `scenario` member runs the same world),
  /// decoded as the shard decoded it: a world of more devices than a run holds, only the shard's.
  static func loadScenario(_ directory: String, shard: RunShard) -> Result<Scenario, RunShardFile.Problem> {
    let path = directory + "/resolved.json"
    guard let bytes = FileManager.default.contents(atPath: path) else {
      return .failure(RunShardFile.Problem("\(path): missing or unreadable"))
    }
    guard let root = try? JSONParser.parse(Array(bytes)), let member = root.member("scenario") else {
      return .failure(RunShardFile.Problem("\(path): not a resolved scenario"))
    }
    do {
      let (scenario, _) = try ScenarioDecoder.decode(
        Array(member.serialized().utf8), file: path, acceptLarge: true, shard: ShardWindow.Request(shard: shard))
      return .success(scenario)
    } catch {
      return .failure(RunShardFile.Problem("\(path): \(error)"))
    }
  }

  /// The shards' tallies added in shard order.
  public var tally: SummaryTally {
    var total = shards[0].file.tally
    for shard in shards.dropFirst() { total.add(shard.file.tally) }
    return total
  }

  /// Every part's fingerprint, in part order, folded as the unsharded run folds them.
  public var fingerprint: String {
    RunReport.fingerprint(shards.flatMap(\.file.fingerprints)).hex
  }

  /// The run's end: the earliest of its shards' (a part stopped early ends it).
  public var endTime: SimTime { shards.map(\.file.endTime).min()! }

  /// Whether some shard stopped at the event limit.
  public var stoppedAtEventLimit: Bool { shards.contains { $0.file.stoppedAtEventLimit } }

  /// The merged run's summary, its expectations checked, and its files (the summary, the first
  /// shard's `resolved.json` and `datapackage.json`, and the per-row files the shards hold).
  ///
  /// A partial merge evaluates no expectation (its summary is of some accounts only), adds
  /// `partial.txt` (the shards missing, the parts and rows merged) and heads `datapackage.json`
  /// with a `partial` member.
  public func files(version: String) -> (summary: RunSummary, expectations: [ExpectationResult], files: [ResultFile]) {
    let summary = RunSummary(tally: tally)
    let expectations = missing.isEmpty ? ScenarioRunner.evaluate(scenario.expectations, summary) : []
    let first = shards[0].file
    let table = RunReport.summaryTable(
      name: scenario.name, seed: first.seed, version: version, scenarioHash: first.scenarioHash,
      fingerprint: fingerprint, endTime: endTime, summary: summary, expectations: expectations)
    var files = [ResultFile(name: "summary.csv", text: table.text)]
    let count = first.shard.count
    let parts = shards.reduce(0) { $0 + $1.file.parts.count }
    for name in ["resolved.json", "datapackage.json"] {
      if var text = try? String(contentsOfFile: shards[0].directory + "/" + name, encoding: .utf8) {
        if name == "datapackage.json" && !missing.isEmpty && text.hasPrefix("{\n") {
          text =
            "{\n  \"partial\": {\"shards\": \(count), \"missingShards\": [\(missing.map(String.init).joined(separator: ", "))], "
            + "\"parts\": \(first.partCount), \"partsMerged\": \(parts)},\n" + text.dropFirst(2)
        }
        files.append(ResultFile(name: name, text: text))
      }
    }
    if !missing.isEmpty {
      let rows = summary.value("rows").map { String(Int($0)) } ?? "0"
      files.append(
        ResultFile(
          name: "partial.txt",
          text: "partial merge: shards \(missing.map(String.init).joined(separator: ",")) of \(count) missing\n"
            + "parts of the whole run \(first.partCount)\nparts merged \(parts)\nrows \(rows)\n"))
    }
    for (name, writes, activities) in Self.idColumns
    where FileManager.default.fileExists(atPath: shards[0].directory + "/" + name) {
      guard let header = MappedCSV(path: shards[0].directory + "/" + name)?.columns else { continue }
      let shifted = header.indices.map { (writes.contains(header[$0]), activities.contains(header[$0])) }
      let shards = shards
      files.append(
        ResultFile(name: name, columns: header) { stream in
          var (writeOffset, activityOffset) = (0, 0)
          for shard in shards {
            if let csv = MappedCSV(path: shard.directory + "/" + name) {
              var cursor = csv.cursor()
              var malformed = false
              while var row = cursor.next(malformed: &malformed) {
                for (index, shift) in shifted.enumerated() where index < row.count && !row[index].isEmpty {
                  let offset = shift.0 ? writeOffset : shift.1 ? activityOffset : 0
                  if offset != 0, let id = Int(row[index]) { row[index] = String(id + offset) }
                }
                stream.append(row)
              }
            }
            writeOffset += shard.file.writes
            activityOffset += shard.file.activities
          }
        })
    }
    return (summary, expectations, files)
  }
}
