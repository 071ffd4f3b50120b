import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario

/// A screening cut in shards for a cluster: `--shard I/N` runs runs I, I+N, I+2N, … (run k is
/// point k ÷ seeds under seed k mod seeds) and writes their metrics (`sensitivity-runs.csv`) and
/// a manifest (`shard.txt`: which shard, what every shard of the same screening shares, and the
/// runs file's digest, signed); `--merge DIR...` with the same scenario and options reads the N
/// folders back, refuses a mix or a gap, and writes what the unsharded screening writes, byte
/// for byte (every figure is written in its shortest exact form, so the means are the same sums).
enum SensitivityShard {
  static let runsFile = "sensitivity-runs.csv"
  static let manifestFile = "shard.txt"

  /// What every shard of one screening shares: the scenario file's hash, the design, the
  /// parameters, seeds and metrics, and the number of runs.
  static func commonManifest(
    bytes: [UInt8], method: SensitivityDesign.Method, trajectories: Int, runner: SensitivityRunner
  ) -> String {
    "screening \(method.rawValue) trajectories \(method == .morris ? trajectories : 0)\n"
      + "scenario \(TrajectoryFingerprint(bytes: bytes).hex)\nruns \(runner.runCount)\n"
      + "parameters \(runner.factors.map(\.name).joined(separator: ","))\n"
      + "seeds \(runner.seeds.map(String.init).joined(separator: ","))\n"
      + "metrics \(runner.metrics.joined(separator: ","))\nversion \(SyncSimCommand.version)\n"
  }

  /// The runs of shard `index` of `count` (1-based).
  static func runs(of shard: (index: Int, count: Int), total: Int) -> [Int] {
    Array(stride(from: shard.index - 1, to: total, by: shard.count))
  }

  /// The shard's two files.
  static func files(
    shard: (index: Int, count: Int), runs: [Int], values: [[Double?]], metrics: [String], common: String
  ) -> [ResultFile] {
    var table = CSVTable(columns: ["run"] + metrics)
    for (run, row) in zip(runs, values) {
      table.append([String(run)] + row.map { $0.map { String($0) } ?? "" })
    }
    let text = table.text
    let manifest =
      "shard \(shard.index) of \(shard.count)\n" + common + "runsFile \(String(StableHash.fnv1a(text), radix: 16))\n"
    return [
      ResultFile(name: runsFile, text: text), ResultFile(name: manifestFile, text: SelfDigest.signed(manifest)),
    ]
  }

  /// Every run's metrics from the shard folders, or each problem found (a folder that is not a
  /// shard of this screening, an edited file, runs no folder holds).
  static func merged(
    _ folders: [String], common: String, total: Int, metrics: Int
  ) -> (runs: [[Double?]], problems: [String]) {
    var runs = [[Double?]?](repeating: nil, count: total)
    var problems: [String] = []
    var shards: [Int: String] = [:]  // lookup only
    var count: Int?
    for folder in folders {
      guard let signed = try? String(contentsOfFile: folder + "/" + manifestFile, encoding: .utf8) else {
        problems.append("\(folder): no \(manifestFile): not a shard of a screening (sensitivity --shard I/N writes one)")
        continue
      }
      guard let body = SelfDigest.verified(signed) else {
        problems.append("\(folder)/\(manifestFile): its digest does not match: the file was edited or cut short")
        continue
      }
      var lines = body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      let header = lines.removeFirst().split(separator: " ")
      guard header.count == 4, header[0] == "shard", let index = Int(header[1]), let of = Int(header[3]),
        let digestLine = lines.dropLast().last, digestLine.hasPrefix("runsFile ")
      else {
        problems.append("\(folder)/\(manifestFile): not a screening shard's manifest")
        continue
      }
      let shared = lines.dropLast(2).joined(separator: "\n") + "\n"
      guard shared == common else {
        problems.append(
          "\(folder): a shard of another screening (its scenario, options or version differ from these); "
            + "merge the shards of one command with that command's options")
        continue
      }
      if let count, count != of {
        problems.append("\(folder): shard \(index) of \(of), where the others are of \(count)")
        continue
      }
      count = of
      if let other = shards[index] {
        problems.append("\(folder): shard \(index) again (also \(other))")
        continue
      }
      shards[index] = folder
      guard let text = try? String(contentsOfFile: folder + "/" + runsFile, encoding: .utf8),
        String(StableHash.fnv1a(text), radix: 16) == digestLine.dropFirst("runsFile ".count)
      else {
        problems.append("\(folder)/\(runsFile): missing, edited or cut short (its digest is not the manifest's)")
        continue
      }
      for line in text.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == metrics + 1, let run = Int(fields[0]), run >= 0, run < total,
          run % of == index - 1
        else {
          problems.append("\(folder)/\(runsFile): a row that is not one of shard \(index)'s runs: \(line.prefix(60))")
          break
        }
        runs[run] = fields.dropFirst().map { Double($0) }
      }
    }
    if problems.isEmpty, let count {
      let missing = (1...count).filter { shards[$0] == nil }
      if !missing.isEmpty {
        problems.append(
          "shard\(missing.count == 1 ? "" : "s") \(missing.map(String.init).joined(separator: ", ")) of \(count) "
            + "missing: run them with --shard I/\(count) and the same options, then merge all \(count)")
      }
    }
    if problems.isEmpty, case let absent = runs.indices.filter({ runs[$0] == nil }), let first = absent.first {
      problems.append("\(absent.count) runs are in no shard's file (the first: run \(first))")
    }
    return problems.isEmpty ? (runs.map { $0 ?? [] }, []) : ([], problems)
  }
}
