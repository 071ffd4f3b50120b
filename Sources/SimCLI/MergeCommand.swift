import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario

/// `syncsim merge DIR... --out DIR`: combines sweep shards into exactly the files one unsharded
/// sweep would have written.
struct MergeCommand {
  static let usage = """
    usage: syncsim merge SHARD_DIR... --out DIR [--partial]

    Combines the folders written by `syncsim sweep --shard I/N` (all N of them) into DIR: the
    same sweep.csv, sweep-summary.csv and points/ an unsharded sweep writes, byte for byte.
    With --partial, a sweep's shards that are there are merged though some are missing: the
    set says so (partial.txt, and "partial" in datapackage.json) and the summary counts the
    runs it has.
    Folders written by `syncsim run --shard I/N` (all N) combine into the files of the
    unsharded run: summary.csv, resolved.json, datapackage.json and the per-row files, byte
    for byte; exits 1 if an expectation of the scenario fails on the merged summary. With
    --partial, a run's shards that are there are merged though some are missing (partial.txt,
    "partial" in datapackage.json), and no expectation is evaluated.
    """

  /// The shards read: their `sweep.csv` files (mapped, walked in order when written), their
  /// points' scenarios, and what their manifests agree on.
  struct Shards {
    var files: [(name: String, csv: MappedCSV)] = []
    var pointFiles: [(point: String, name: String, text: String)] = []
    var factors: [String] = []
    /// The factors' labels and scales and the sweep's title, from a shard's `datapackage.json`.
    var labels = SweepLabels(paths: [])
    /// The sweep's scenario, as its manifests name it.
    var scenario = "sweep"
    /// A partial merge's missing shards (nil: the merge is whole or refused), of how many, and
    /// the whole sweep's runs.
    var missing: [Int]?
    var shardCount = 0
    var totalRuns = 0
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let partial = args.flag("partial")
    guard let outText = try args.option("out") else { throw UsageError("merge needs --out DIR") }
    let out = try OutputPath.folder(outText, option: "--out")
    var directories = try args.positionals()
    guard !directories.isEmpty else { throw UsageError("merge needs the shard folders") }
    // `shards/*` also matches a killed shard's journal (a sweep's finished runs, `SweepJournal`; a
    // run's checkpointed parts, `RunShardJournal`): not a shard.
    let journals = directories.filter { SweepJournal.isJournal($0) || RunShardJournal.isJournal($0) }
    for journal in journals {
      console.error(
        "note: \(journal) is a killed shard's finished work, not a shard: run that shard again to resume it")
    }
    directories.removeAll { journals.contains($0) }
    guard !directories.isEmpty else { throw UsageError("merge needs the shard folders") }
    let runShards = directories.filter {
      FileManager.default.fileExists(atPath: $0 + "/" + RunShardFile.name)
    }
    if !runShards.isEmpty {
      guard runShards.count == directories.count else {
        console.error(
          "error: some folders are shards of a run (run-shard.txt) and some are not; merge one run's shards")
        return .dataError
      }
      return mergeRun(directories, to: out, partial: partial, console: console)
    }
    switch read(directories, partial: partial) {
    case .failure(let problems):
      for problem in problems.messages { console.error(problem) }
      if !partial && problems.messages.contains(where: { $0.hasPrefix("missing shards") }) {
        console.error("(merge --partial writes what is there, marked as partial)")
      }
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
  static func read(_ directories: [String], partial: Bool = false) -> Result<Shards, Problems> {
    var problems: [String] = []
    var shards = Shards()
    var columns: [String]?
    var seen: [Int] = []
    var expected: (count: Int, total: Int, factors: String, rest: [String])?
    var command: String?
    var given: [(index: Int, directory: String)] = []
    for directory in directories {
      guard let manifest = try? String(contentsOfFile: directory + "/shard.txt", encoding: .utf8) else {
        problems.append("\(directory): no shard.txt (not a folder written by sweep --shard)")
        continue
      }
      guard let signed = SelfDigest.verified(manifest) else {
        problems.append(
          "\(directory)/shard.txt: its digest line does not match its contents (edited, or cut short on its way): "
            + "copy the shard again, or run it again")
        continue
      }
      guard let shard = parseManifest(String(signed)) else {
        problems.append("\(directory)/shard.txt: malformed")
        continue
      }
      problems += carriedFileProblems(directory, listed: shard.rest)
      let (index, count, total, factors, allRest) = shard
      // The command line may differ (a path written another way): it is only shown.
      let rest = sharedLines(allRest)
      if command == nil { command = allRest.first { $0.hasPrefix("command ") }.map { String($0.dropFirst(8)) } }
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
      given.append((index, directory))
      guard let csv = MappedCSV(path: directory + "/sweep.csv") else {
        problems.append("\(directory)/sweep.csv: missing or unreadable")
        continue
      }
      if let columns, columns != csv.columns { problems.append("\(directory)/sweep.csv: different columns") }
      columns = csv.columns
      shards.files.append((directory + "/sweep.csv", csv))
      shards.pointFiles += pointScenarios(in: directory)
    }
    if let expected, problems.isEmpty {
      let missing = (1...expected.count).filter { !seen.contains($0) }
      if partial {
        shards.missing = missing
        shards.shardCount = expected.count
        shards.totalRuns = expected.total
      } else if !missing.isEmpty {
        problems.append("missing shards: \(missing.map(String.init).joined(separator: ", ")) of \(expected.count)")
        if let command {
          let folder = missingFolder(given)
          problems += missing.map { "  run shard \($0) with: \(command) --shard \($0)/\(expected.count) --out \(folder($0))" }
        }
      }
    }
    guard problems.isEmpty, let columns, let expected else { return .failure(Problems(messages: problems)) }
    shards.factors = expected.factors.isEmpty ? [] : expected.factors.split(separator: ",").map(String.init)
    guard columns == SweepOutput.columns(factors: shards.factors) else {
      return .failure(Problems(messages: ["sweep.csv columns do not match the manifest's factors"]))
    }
    // The shards ran one scenario (the manifests' hashes agree): the first's labels are all of theirs.
    let package = given.first.flatMap { FileManager.default.contents(atPath: $0.directory + "/datapackage.json") }
    shards.labels = SweepLabels.read(dataPackage: package, paths: shards.factors)
    if let line = expected.rest.first(where: { $0.hasPrefix("scenario ") }) {
      shards.scenario = String(line.dropFirst(9))
    }
    let seedLine = expected.rest.first { $0.hasPrefix("seeds ") }
    let seedCount = seedLine.map { $0.dropFirst(6).split(separator: ",").count }
    // A partial merge's points lack the missing shards' replications.
    let rowProblems = checkRows(shards, seedCount: partial ? nil : seedCount)
    guard rowProblems.isEmpty else { return .failure(Problems(messages: rowProblems)) }
    return .success(shards)
  }

  /// Walks every shard's rows once, in merged order, before anything is written: each row whole
  /// (a shard cut short mid-row is run again, not merged), its point, replication and seed whole
  /// numbers and its value a number or empty, each shard in sweep order, every (point,
  /// replication, metric) once, and every point with every replication of the plan.
  static func checkRows(_ shards: Shards, seedCount: Int?) -> [String] {
    var walk = ShardWalk(shards.files, factorCount: shards.factors.count)
    let valueColumn = walk.metricColumn + 1
    var problems: [String] = []
    var badValues = [Int](repeating: 0, count: shards.files.count)
    var previous: (key: ShardWalk.Key, metric: String)?
    var point: (number: Int, replications: Set<Int>)?
    func closePoint() {
      guard let point, let seedCount, point.replications.count != seedCount else { return }
      let missing = (0..<seedCount).filter { !point.replications.contains($0) }
      problems.append("point \(point.number) lacks replications \(missing.map(String.init).joined(separator: ", "))")
    }
    while let (row, shard, number) = walk.next() {
      let key = walk.key(row)
      let whole = key.point >= 0 && key.replication >= 0 && UInt64(row[3]) != nil
      let value = row[valueColumn]
      if !whole || !(value.isEmpty || Double(value) != nil || ["NaN", "Inf", "-Inf"].contains(value)) {
        badValues[shard] += 1
        if badValues[shard] <= 5 {
          problems.append("\(shards.files[shard].name): row \(number) holds a value that is not a number")
        }
      }
      let metric = row[walk.metricColumn]
      if let previous, previous.key == key, previous.metric == metric, problems.count < 20 {
        problems.append("point \(row[1]) replication \(row[2]) (seed \(row[3])) appears twice")
      }
      previous = (key, metric)
      if point?.number != key.point {
        closePoint()
        point = (key.point, [])
      }
      point?.replications.insert(key.replication)
    }
    closePoint()
    for source in walk.sources {
      if let first = source.malformed.first {
        problems.append(
          "\(source.name): \(source.malformed.count) row\(source.malformed.count == 1 ? "" : "s") with the wrong "
            + "number of fields (first: row \(first)); a shard cut short is run again, not merged")
      }
      if let row = source.outOfOrder {
        problems.append("\(source.name): row \(row) is out of sweep order (point, replication, metric)")
      }
    }
    return problems
  }

  /// Where a missing shard's folder goes: the given folders' names with their shard's number in
  /// the same place (`shards/3` for `shards/1`, `shards/2`), else `DIR`.
  static func missingFolder(_ given: [(index: Int, directory: String)]) -> (Int) -> String {
    guard let first = given.first else { return { _ in "DIR" } }
    let number = String(first.index)
    guard let range = first.directory.range(of: number, options: .backwards) else { return { _ in "DIR" } }
    let (head, tail) = (String(first.directory[..<range.lowerBound]), String(first.directory[range.upperBound...]))
    let fits = given.allSatisfy { $0.directory == head + String($0.index) + tail }
    return { fits ? CheckCommand.shellQuoted(head + String($0) + tail) : "DIR" }
  }

  /// Of a manifest's lines past its first three, those every shard of one sweep shares (scenario,
  /// hash, seeds): not the command, which each may write another way, nor a journal's version,
  /// nor the files each shard carries.
  static func sharedLines(_ rest: [String]) -> [String] {
    rest.filter {
      !$0.hasPrefix("command ") && !$0.hasPrefix("version ") && !$0.hasPrefix("file ") && !$0.hasPrefix("digest ")
    }
  }

  /// Every file a sweep shard carries into the merge (`sweep.csv`, each point's `scenario.json`
  /// and `resolved.json`) against its manifest's `file NAME BYTES DIGEST` lines: one missing,
  /// emptied, edited or not listed is a problem naming it (issue 71: 36 of 94 hostile pairs
  /// merged into points that could not be rerun).
  static func carriedFileProblems(_ directory: String, listed lines: [String]) -> [String] {
    var listed: [String: String] = [:]  // lookup only
    for line in lines where line.hasPrefix("file ") {
      let words = line.split(separator: " ", maxSplits: 1)
      guard words.count == 2, let cut = words[1].lastIndex(of: " ").flatMap({ words[1][..<$0].lastIndex(of: " ") })
      else { return ["\(directory)/shard.txt: malformed line \(line)"] }
      listed[String(words[1][..<cut])] = String(words[1][words[1].index(after: cut)...])
    }
    var present = ["sweep.csv"]
    present += pointScenarios(in: directory).map { "points/\($0.point)/\($0.name)" }
    var problems: [String] = []
    for name in present {
      guard let expected = listed[name] else {
        problems.append("\(directory)/\(name): not in the shard's manifest (shard.txt); run the shard again")
        continue
      }
      guard let data = FileManager.default.contents(atPath: "\(directory)/\(name)") else {
        problems.append("\(directory)/\(name): cannot be read")
        continue
      }
      let found = "\(data.count) \(String(StableHash.fnv1a(data), radix: 16))"
      if found != expected {
        problems.append(
          "\(directory)/\(name): \(found.replacingOccurrences(of: " ", with: " bytes, digest ")); the shard wrote "
            + "\(expected.replacingOccurrences(of: " ", with: " bytes, digest ")) (edited or cut short on its way: copy "
            + "the shard again, or run it again)")
      }
    }
    for name in listed.keys.sorted() where !present.contains(name) {
      problems.append("\(directory)/\(name): missing, though the shard's manifest lists it")
    }
    return problems
  }

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
    // sweep.csv is streamed from the shards in merged order; the summary is built as it goes
    // (only each (point, metric)'s values are kept) and written after it.
    final class Progress: @unchecked Sendable {
      var summary: SweepOutput.Summary
      var rows = 0
      init(factors: [String]) { summary = SweepOutput.Summary(factors: factors) }
    }
    let progress = Progress(factors: shards.factors)
    var files = [
      ResultFile(name: "sweep.csv", columns: SweepOutput.columns(factors: shards.factors)) { stream in
        var walk = ShardWalk(shards.files, factorCount: shards.factors.count)
        while let (row, _, _) = walk.next() {
          stream.append(row)
          progress.summary.add(row)
          progress.rows += 1
        }
      },
      ResultFile(name: "sweep-summary.csv", lazyText: { progress.summary.table().text }),
      ResultFile(name: "datapackage.json", text: dataPackage(shards)),
    ]
    if let note = partialNote(shards) {
      files.append(ResultFile(name: "partial.txt", lazyText: { note + "rows \(progress.rows)\n" }))
    }
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
    console.print("merged \(count) shards: \(progress.rows) rows into \(out)/")
    if let missing = shards.missing, !missing.isEmpty {
      console.error(
        "warning: a partial merge: shards \(missing.map(String.init).joined(separator: ", ")) of \(shards.shardCount) "
          + "are missing (\(out)/partial.txt)")
    }
    return .success
  }

  /// `datapackage.json`: the sweep's, with what a partial merge lacks in its description.
  static func dataPackage(_ shards: Shards) -> String {
    let text = SweepOutput.dataPackage(name: shards.scenario, labels: shards.labels, withSummary: true)
    guard let missing = shards.missing, !missing.isEmpty, text.hasPrefix("{\n") else { return text }
    let list = missing.map(String.init).joined(separator: ", ")
    return "{\n  \"partial\": {\"shards\": \(shards.shardCount), \"missingShards\": [\(list)], \"runs\": \(shards.totalRuns)},\n"
      + text.dropFirst(2)
  }

  /// `partial.txt` of a merge that lacks shards (nil for a whole one).
  static func partialNote(_ shards: Shards) -> String? {
    guard let missing = shards.missing, !missing.isEmpty else { return nil }
    return "partial merge: shards \(missing.map(String.init).joined(separator: ",")) of \(shards.shardCount) missing\n"
      + "runs of the whole sweep \(shards.totalRuns)\n"
  }

  /// For each shard a run's merge lacks, the command that runs it: the shards' own command line
  /// (`run-shard.txt`) with `--shard I/N` and a folder named as the others are.
  static func missingRunCommands(_ problems: RunShardMerge.Problems) -> [String] {
    guard let command = problems.command else { return [] }
    let folder = missingFolder(problems.given)
    return problems.missing.map {
      "  run shard \($0.index) with: \(command) --shard \($0.text) --out \(folder($0.index))"
    }
  }

  /// Merges the shards of one run into the unsharded run's files.
  static func mergeRun(_ directories: [String], to out: String, partial: Bool, console: Console) -> ExitCode {
    switch RunShardMerge.read(directories, partial: partial) {
    case .failure(let problems):
      for problem in problems.messages { console.error("error: \(problem)") }
      if !problems.missing.isEmpty {
        for line in missingRunCommands(problems) { console.error(line) }
        console.error("(merge --partial writes what is there, marked as partial)")
      }
      return .dataError
    case .success(let merge):
      let (summary, expectations, files) = merge.files(version: SyncSimCommand.version)
      do {
        try ResultSetWriter.write(files, to: out, kind: .run)
      } catch {
        console.error("error: cannot write \(out): \(OutputPath.describe(error))")
        return .cannotCreate
      }
      let rows = summary.value("rows").map { String(Int($0)) } ?? "0"
      console.print("merged \(directories.count) shards of \(merge.scenario.name): \(rows) rows into \(out)/")
      if !merge.missing.isEmpty {
        console.error(
          "warning: a partial merge: shards \(merge.missing.map(String.init).joined(separator: ", ")) of "
            + "\(merge.shards[0].file.shard.count) are missing (\(out)/partial.txt); no expectation was evaluated")
      }
      for result in expectations where !result.passed { console.error("expectation failed: \(result.description)") }
      if merge.stoppedAtEventLimit {
        console.error("error: a shard stopped at the event limit before its end; the merged run covers only part of it")
        return .failure
      }
      return expectations.allSatisfy(\.passed) ? .success : .failure
    }
  }
}
