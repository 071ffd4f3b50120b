import Foundation
import SimExperiments
import SimMetrics
import SimScenario

/// `syncsim merge DIR... --out DIR`: combines sweep shards into exactly the files one unsharded
/// sweep would have written.
struct MergeCommand {
  static let usage = """
    usage: syncsim merge SHARD_DIR... --out DIR

    Combines the folders written by `syncsim sweep --shard I/N` (all N of them) into DIR: the
    same sweep.csv, sweep-summary.csv and points/ an unsharded sweep writes, byte for byte.
    """

  /// The shards read: their rows, their points' scenarios, and what their manifests agree on.
  struct Shards {
    var columns: [String] = []
    var rows: [[String]] = []
    var pointFiles: [(point: String, name: String, text: String)] = []
    var factors: [String] = []
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    guard let outText = try args.option("out") else { throw UsageError("merge needs --out DIR") }
    let out = try OutputPath.folder(outText, option: "--out")
    let directories = try args.positionals()
    guard !directories.isEmpty else { throw UsageError("merge needs the shard folders") }
    switch read(directories) {
    case .failure(let problems):
      for problem in problems.messages { console.error(problem) }
      return .dataError
    case .success(let shards):
      return write(shards, from: directories.count, to: out, console: console)
    }
  }

  /// Every problem found in the shard folders.
  struct Problems: Error {
    var messages: [String]
  }

  /// Reads and checks every shard: all of one sweep, each once, none missing.
  static func read(_ directories: [String]) -> Result<Shards, Problems> {
    var problems: [String] = []
    var shards = Shards()
    var columns: [String]?
    var seen: [Int] = []
    var expected: (count: Int, total: Int, factors: String, rest: [String])?
    for directory in directories {
      guard let manifest = try? String(contentsOfFile: directory + "/shard.txt", encoding: .utf8) else {
        problems.append("\(directory): no shard.txt (not a folder written by sweep --shard)")
        continue
      }
      guard let shard = parseManifest(manifest) else {
        problems.append("\(directory)/shard.txt: malformed")
        continue
      }
      let (index, count, total, factors, rest) = shard
      if let expected,
        expected.count != count || expected.total != total || expected.factors != factors
          || expected.rest != rest
      {
        let differing = zip(expected.rest, rest).filter { $0 != $1 }.map { "\($0.0) vs \($0.1)" }
        problems.append(
          "\(directory): shard of a different sweep (\(count) shards, \(total) runs, factors \(factors)"
            + (differing.isEmpty ? "" : "; " + differing.joined(separator: "; ")) + ")")
        continue
      }
      expected = (count, total, factors, rest)
      if seen.contains(index) { problems.append("\(directory): shard \(index) given twice") }
      seen.append(index)
      var malformed: [Int] = []
      guard let text = try? String(contentsOfFile: directory + "/sweep.csv", encoding: .utf8),
        let table = CSVTable.parse(text, malformed: &malformed)
      else {
        problems.append("\(directory)/sweep.csv: missing or unreadable")
        continue
      }
      if let first = malformed.first {
        problems.append(
          "\(directory)/sweep.csv: \(malformed.count) row\(malformed.count == 1 ? "" : "s") with the wrong number of "
            + "fields (first: row \(first)); a shard cut short is run again, not merged")
        continue
      }
      problems += badValues(table, in: directory)
      if let columns, columns != table.columns { problems.append("\(directory)/sweep.csv: different columns") }
      columns = table.columns
      shards.rows += table.rows
      shards.pointFiles += pointScenarios(in: directory)
    }
    if let expected, problems.isEmpty {
      let missing = (1...expected.count).filter { !seen.contains($0) }
      if !missing.isEmpty {
        problems.append("missing shards: \(missing.map(String.init).joined(separator: ", ")) of \(expected.count)")
      }
    }
    guard problems.isEmpty, let columns, let expected else { return .failure(Problems(messages: problems)) }
    shards.columns = columns
    shards.factors = expected.factors.isEmpty ? [] : expected.factors.split(separator: ",").map(String.init)
    guard columns == SweepOutput.columns(factors: shards.factors) else {
      return .failure(Problems(messages: ["sweep.csv columns do not match the manifest's factors"]))
    }
    let seedLine = expected.rest.first { $0.hasPrefix("seeds ") }
    let seedCount = seedLine.map { $0.dropFirst(6).split(separator: ",").count }
    let replicationProblems = checkReplications(shards, seedCount: seedCount)
    guard replicationProblems.isEmpty else { return .failure(Problems(messages: replicationProblems)) }
    return .success(shards)
  }

  /// The rows whose point, replication or seed is not a whole number, or whose value is neither
  /// empty (undefined) nor a number: at most five are named.
  static func badValues(_ table: CSVTable, in directory: String) -> [String] {
    guard let point = table.columns.firstIndex(of: "point"),
      let replication = table.columns.firstIndex(of: "replication"),
      let seed = table.columns.firstIndex(of: "seed"), let value = table.columns.firstIndex(of: "value")
    else { return ["\(directory)/sweep.csv: lacks a point, replication, seed or value column"] }
    var problems: [String] = []
    for (number, row) in table.rows.enumerated() where problems.count < 5 {
      let whole = [point, replication].allSatisfy { Int(row[$0]).map { $0 >= 0 } ?? false } && UInt64(row[seed]) != nil
      let isValue = row[value].isEmpty || Double(row[value]) != nil || ["NaN", "Inf", "-Inf"].contains(row[value])
      if !whole || !isValue {
        problems.append("\(directory)/sweep.csv: row \(number + 1) holds a value that is not a number")
      }
    }
    return problems
  }

  /// Every (point, replication, metric) once, and every point with every replication of the plan.
  static func checkReplications(_ shards: Shards, seedCount: Int?) -> [String] {
    let metricColumn = 4 + shards.factors.count
    var seen = Set<[String]>()  // membership only
    var replications: [String: Set<Int>] = [:]  // lookup only; points are reported in order
    var points: [String] = []
    var problems: [String] = []
    for row in shards.rows {
      let key = [row[1], row[2], row[metricColumn]]
      if !seen.insert(key).inserted && problems.count < 20 {
        problems.append("point \(row[1]) replication \(row[2]) (seed \(row[3])) appears twice")
      }
      if replications[row[1]] == nil { points.append(row[1]) }
      replications[row[1], default: []].insert(Int(row[2]) ?? -1)
    }
    if let seedCount {
      for point in points where replications[point]!.count != seedCount {
        let missing = (0..<seedCount).filter { !replications[point]!.contains($0) }
        problems.append("point \(point) lacks replications \(missing.map(String.init).joined(separator: ", "))")
      }
    }
    return problems
  }

  /// A manifest's shard index, shard count, total runs and factors.
  /// A manifest's shard index, shard count, total runs, factors, and the lines every shard of one
  /// sweep shares (scenario, hash, seeds).
  static func parseManifest(
    _ manifest: String
  ) -> (
    index: Int, count: Int, total: Int, factors: String, rest: [String]
  )? {
    let lines = manifest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let words = lines.first?.split(separator: " ") ?? []
    guard lines.count >= 3, words.count == 4, let index = Int(words[1]), let count = Int(words[3]),
      lines[1].hasPrefix("runs "), let total = Int(lines[1].dropFirst(5)), lines[2].hasPrefix("factors")
    else { return nil }
    return (index, count, total, String(lines[2].dropFirst(8)), Array(lines[3...]).filter { !$0.isEmpty })
  }

  /// The files of each point a shard ran (its scenario and resolved scenario), by point folder.
  static func pointScenarios(in directory: String) -> [(point: String, name: String, text: String)] {
    let points = (try? FileManager.default.contentsOfDirectory(atPath: directory + "/points")) ?? []
    return points.sorted().filter { ResultSetWriter.isRemovableFolder($0, depth: 2) }.flatMap { point in
      ["scenario.json", "resolved.json"].compactMap { name in
        (try? String(contentsOfFile: "\(directory)/points/\(point)/\(name)", encoding: .utf8)).map { (point, name, $0) }
      }
    }
  }

  /// Writes the merged files an unsharded sweep would have written.
  static func write(_ shards: Shards, from count: Int, to out: String, console: Console) -> ExitCode {
    let table = SweepOutput.table(shards.rows, factors: shards.factors)
    var files = [
      ResultFile(name: "sweep.csv", text: table.text),
      ResultFile(name: "sweep-summary.csv", text: SweepOutput.summary(of: table, factors: shards.factors).text),
    ]
    // Shards that ran replications of one point each wrote its files (the same bytes): one copy.
    var written = Set<String>()  // membership only; files keep the shards' order
    for (point, name, text) in shards.pointFiles where written.insert("\(point)/\(name)").inserted {
      files.append(ResultFile(name: "points/\(point)/\(name)", text: text))
    }
    do {
      try ResultSetWriter.write(files, to: out, kind: .sweep)
    } catch {
      console.error("error: cannot write \(out): \(OutputPath.describe(error))")
      return .cannotCreate
    }
    console.print("merged \(count) shards: \(table.rows.count) rows into \(out)/")
    return .success
  }
}
