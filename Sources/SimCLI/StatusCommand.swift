import Foundation
import SimMetrics
import SimScenario

/// `syncsim status DIR...`: how far the shards of a sweep, or of a run (`run --shard`), have got,
/// read from their folders: the shards finished (`shard.txt`, `run-shard.txt`), those under way
/// (`DIR.resume/`: a sweep's finished runs, `SweepJournal`; a run's checkpointed parts,
/// `RunShardJournal`), the shards missing, and a guess at the time left from the pace so far.
///
/// Only reads; the time left is a wall-clock estimate for the terminal, never written anywhere.
enum StatusCommand {
  static let usage = """
    usage: syncsim status DIR...

    How far the shards of a sweep (or of a run: run --shard) have got: each folder given is a
    shard's --out folder, finished (its shard.txt or run-shard.txt) or under way (its DIR.resume/
    of finished runs, or of a run's checkpointed parts); prints each shard's finished runs (or
    parts), the shards none of the folders is, and the time left at the pace so far. Exits 0 when
    every shard is finished, 1 otherwise, 65 when the folders are of different sweeps or runs.
    """

  /// One shard's state.
  struct Shard {
    var folder: String
    var index: Int
    var count: Int
    var total: Int
    /// The shard manifest's lines past its first (what every shard of one sweep shares).
    var identity: [String]
    var finished: Int
    var done: Bool
    /// Seconds from the journal's start to its newest run (nil when it has none).
    var elapsedSeconds: Double?
    /// A run's shard, whose units are parts (contiguous shares, `RunShard`), not a sweep's runs.
    var isRun = false

    /// The runs of shard `index` of `count` among `total`: k with k mod count = index − 1 (a
    /// sweep's); or the parts of its contiguous share (a run's).
    var runs: Int {
      if isRun { return RunShard(index: index, count: count).parts(of: total).count }
      return total >= index ? (total - index) / count + 1 : 0
    }
    /// What the shard's units are called.
    var unit: String { isRun ? "parts" : "runs" }
  }

  static func run(_ arguments: [String], console: Console) throws(UsageError) -> ExitCode {
    var args = ArgumentList(arguments)
    if args.flag("help") {
      console.print(usage)
      return .success
    }
    let folders = try args.positionals()
    guard !folders.isEmpty else { throw UsageError("status needs the shard folders") }
    var shards: [Shard] = []
    for folder in folders where !(folder.hasSuffix(".resume") && folders.contains(String(folder.dropLast(7)))) {
      if let shard = read(folder) {
        shards.append(shard)
      } else {
        console.print("\(folder): nothing yet (no shard.txt or run-shard.txt, no \(folder).resume/)")
      }
    }
    guard let first = shards.first else { return .failure }
    if let other = shards.first(where: {
      $0.count != first.count || $0.total != first.total || $0.identity != first.identity || $0.isRun != first.isRun
    }) {
      console.error(
        "error: \(first.folder) and \(other.folder) are shards of different \(first.isRun ? "runs" : "sweeps")")
      return .dataError
    }
    var finishedRuns = 0
    for shard in shards.sorted(by: { $0.index < $1.index }) {
      finishedRuns += shard.finished
      let state = shard.done ? "finished" : "started, not finished"
      console.print(
        "shard \(shard.index)/\(shard.count)  \(shard.finished) of \(shard.runs) \(shard.unit)  \(state)  (\(shard.folder))"
      )
    }
    let seen = Set(shards.map(\.index))  // membership only
    let missing = (1...first.count).filter { !seen.contains($0) }
    if !missing.isEmpty {
      console.print("missing      shards \(missing.map(String.init).joined(separator: ", ")) (no folder given is one)")
    }
    var line = "total        \(finishedRuns) of \(first.total) \(first.unit) finished"
    // Each started shard goes on at its own pace; the missing shards' runs are not started.
    let secondsLeft = shards.compactMap { shard -> Double? in
      guard !shard.done, let elapsed = shard.elapsedSeconds, shard.finished > 0 else { return nil }
      return Double(shard.runs - shard.finished) * elapsed / Double(shard.finished)
    }.max()
    if first.total > finishedRuns, let secondsLeft {
      line += ", about \(DurationText.display(seconds: secondsLeft)) left for the shards started"
    }
    console.print(line)
    return missing.isEmpty && shards.allSatisfy(\.done) ? .success : .failure
  }

  /// The shard whose `--out` is `folder`: finished, or under way with a journal; nil for neither.
  static func read(_ folder: String) -> Shard? {
    let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    if let manifest = try? String(contentsOfFile: base + "/shard.txt", encoding: .utf8),
      let parsed = MergeCommand.parseManifest(manifest)
    {
      var shard = Shard(
        folder: base, index: parsed.index, count: parsed.count, total: parsed.total,
        identity: identity(parsed), finished: 0, done: true)
      shard.finished = shard.runs
      return shard
    }
    if let run = readRun(base) { return run }
    let journal = base.hasSuffix(".resume") ? base : SweepJournal.folder(for: base)
    guard let manifest = try? String(contentsOfFile: journal + "/manifest.txt", encoding: .utf8),
      let parsed = MergeCommand.parseManifest(manifest)
    else { return nil }
    let manager = FileManager.default
    let names = ((try? manager.contentsOfDirectory(atPath: journal)) ?? []).filter {
      $0.hasPrefix("run-") && $0.hasSuffix(".csv")
    }
    let start = modified(journal + "/manifest.txt")
    let newest = names.compactMap { modified(journal + "/" + $0) }.max()
    return Shard(
      folder: base.hasSuffix(".resume") ? String(base.dropLast(7)) : base,
      index: parsed.index, count: parsed.count, total: parsed.total, identity: identity(parsed),
      finished: names.count, done: false,
      elapsedSeconds: start.flatMap { start in newest.map { $0.timeIntervalSince(start) } })
  }

  /// When the file at `path` was last written; nil when it cannot be read.
  static func modified(_ path: String) -> Date? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
  }

  /// The run shard whose `--out` is `folder`: finished (`run-shard.txt`), or under way with a
  /// journal's checkpoint; nil for neither.
  static func readRun(_ base: String) -> Shard? {
    if let text = try? String(contentsOfFile: base + "/" + RunShardFile.name, encoding: .utf8),
      case .success(let file) = RunShardFile.read(text)
    {
      let identity = [file.scenario, file.scenarioHash, String(file.seed), file.version]
      return Shard(
        folder: base, index: file.shard.index, count: file.shard.count, total: file.partCount, identity: identity,
        finished: file.parts.count, done: true, isRun: true)
    }
    let folder = base.hasSuffix(".resume") ? base : RunShardJournal.folder(for: base).folder
    let path = folder + "/" + RunShardJournal.checkpointName
    guard let text = try? String(contentsOfFile: path, encoding: .utf8), let body = RunShardJournal.checkpointBody(text)
    else { return nil }
    let fields = TallyText(String(body))
    guard let progress = RunProgress(text: fields), let shard = fields.integers("shard"), shard.count == 2,
      let run = RunShard(text: "\(shard[0])/\(shard[1])")
    else { return nil }
    let identity = ["scenario", "scenarioHash", "seed", "version"].map {
      fields.fields($0)?.joined(separator: " ") ?? ""
    }
    let start = modified(folder + "/" + RunShardJournal.lockName)
    let newest = modified(path)
    return Shard(
      folder: base.hasSuffix(".resume") ? String(base.dropLast(7)) : base, index: run.index, count: run.count,
      total: progress.partsInWorld, identity: identity, finished: progress.partsDone, done: false,
      elapsedSeconds: start.flatMap { start in newest.map { $0.timeIntervalSince(start) } }, isRun: true)
  }

  /// What every shard of one sweep shares, past its shard count and runs: the factors and the
  /// manifest's shared lines (`MergeCommand.sharedLines`).
  static func identity(_ parsed: (index: Int, count: Int, total: Int, factors: String, rest: [String])) -> [String] {
    [parsed.factors] + MergeCommand.sharedLines(parsed.rest)
  }
}
