import Foundation
import SimKernel
import SimScenario

/// `run --shard` started again over a folder that already holds that shard's whole results: the
/// same scenario (by its hash), seed, duration, shard, version and output options, with every
/// row file as its manifest lists it. Such a shard is kept, not run again: a job array
/// resubmitted after a preemption costs only the shards that had not finished. A shard killed
/// mid-run left no `run-shard.txt` (the set is committed whole, manifest last): it goes on from
/// its journal's last checkpoint instead (`RunShardJournal`).
enum RunShardResume {
  /// Why the shard in `directory` is already finished and kept, or nil when it must run: no
  /// folder, no manifest, another scenario, seed, duration, shard or version, or a file that no
  /// longer matches the manifest (a note on stderr says which).
  static func finished(
    _ scenario: Scenario, shard: RunShard, seed: UInt64?, duration: SimDuration?, trace: Bool, directory: String,
    version: String, console: Console
  ) -> String? {
    let manifestPath = directory + "/" + RunShardFile.name
    guard let data = FileManager.default.contents(atPath: manifestPath), let text = String(data: data, encoding: .utf8)
    else { return nil }
    guard case .success(let file) = RunShardFile.read(text) else {
      console.error("note: \(manifestPath) cannot be read: the shard runs again")
      return nil
    }
    // The scenario as `run` would run it, hashed as its report hashes it.
    let asked = ScenarioRunner.asRun(scenario, seed: seed, duration: duration, trace: trace)
    let hash = ScenarioResolver.hash(ScenarioResolver.resolve(asked, duration: duration))
    let end = SimTime.zero + asked.spec.duration
    let differences = [
      file.scenario != asked.name ? "scenario \(file.scenario)" : nil,
      file.scenarioHash != hash ? "scenarioHash \(file.scenarioHash), not \(hash)" : nil,
      file.seed != asked.spec.seed ? "seed \(file.seed)" : nil,
      file.endTime != end ? "another duration" : nil,
      file.shard != shard ? "shard \(file.shard.index)/\(file.shard.count)" : nil,
      file.version != version ? "version \(file.version)" : nil,
      trace && !file.files.contains { $0.name == "trace.csv" } ? "no trace.csv" : nil,
    ].compactMap { $0 }
    if !differences.isEmpty {
      console.error("note: \(directory) holds another run's shard (\(differences.joined(separator: ", "))): it is replaced")
      return nil
    }
    for entry in file.files {
      guard RunShardFile.FileEntry.of(directory + "/" + entry.name, name: entry.name) == entry else {
        console.error("note: \(directory)/\(entry.name) is not the file the shard wrote: the shard runs again")
        return nil
      }
    }
    guard FileManager.default.fileExists(atPath: directory + "/summary.csv") else {
      console.error("note: \(directory)/summary.csv is missing: the shard runs again")
      return nil
    }
    return "shard \(shard.index)/\(shard.count) already finished in \(directory)/ (its \(RunShardFile.name) and "
      + "\(file.files.count) row files verified): kept, nothing run; remove the folder to run it again"
  }
}
