import Foundation
import SimKernel
import SimMetrics
import SimScenario

/// Where a shard of a run (`run --shard`) writes while it runs, kept when it is killed, so that
/// the shard started again goes on from its last checkpoint instead of from its first part.
///
/// `DIR.resume/` (or `DIR/.shard.resume/` where DIR is a mount point) is the shard's staging
/// folder: its per-row files grow there part by part, and every few seconds `checkpoint.txt`
/// records the parts finished (`RunProgress`) with each file's length, lines and digest then,
/// written under a temporary name and renamed once the files are synced. Started again, the
/// shard checks that the checkpoint is of the same run (scenario, its hash, seed, shard and
/// SyncSim's version) and each file's first bytes against it, cuts the files back to those
/// lengths and runs only the parts after; anything it cannot trust is removed and the shard
/// starts at its first part. When the shard ends, the folder becomes DIR as any staging folder
/// does. A lock (`flock` on `.syncsim-shard.lock`, released by the system when the process dies,
/// on any node of a shared file system that supports locks) keeps a second run of the same shard
/// out: that one stages apart, as a run without a journal does. The lock file stays in the folder,
/// held, through the commit (so a second run never takes the folder being committed for a fresh
/// journal), and goes once the set is in place.
final class RunShardJournal {
  static let checkpointName = "checkpoint.txt"
  static let lockName = ".syncsim-shard.lock"
  static let format = "syncsim-run-checkpoint 2"

  let staging: ResultSetWriter.Staging
  /// The identity lines a checkpoint must carry to be resumed.
  let identity: String
  /// What the run killed before had finished, and its files then; nil when starting afresh.
  private(set) var resumed: (progress: RunProgress, files: [RunShardFile.FileEntry])?
  private var lockDescriptor: Int32
  var folder: String { staging.folder }

  private init(staging: ResultSetWriter.Staging, identity: String, lock: Int32) {
    self.staging = staging
    self.identity = identity
    lockDescriptor = lock
  }

  deinit { if lockDescriptor >= 0 { close(lockDescriptor) } }

  /// A checkpoint's text past its format line (identity, progress, files); nil when it is not a
  /// checkpoint this syncsim wrote.
  static func checkpointBody(_ text: String) -> Substring? {
    text.hasPrefix(format + "\n") ? text.dropFirst(format.count + 1) : nil
  }

  /// The identity lines of `scenario`'s shard `shard` as `run` runs it.
  static func identity(scenario: String, scenarioHash: String, seed: UInt64, shard: RunShard, version: String) -> String
  {
    "scenario \(scenario)\nscenarioHash \(scenarioHash)\nseed \(seed)\nshard \(shard.index) \(shard.count)\n"
      + "version \(version)\n"
  }

  /// The journal folder of a shard writing to `directory`, and whether it lies inside it.
  static func folder(for directory: String) -> (folder: String, target: String, insideTarget: Bool) {
    let (parent, base) = OutputPath.split(directory)
    let target = OutputPath.join(parent, base)
    var status = stat()
    let isFolder = lstat(target, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    if isFolder && ResultSetWriter.isMountPoint(target, status: status) {
      return (OutputPath.join(target, ".shard.resume"), target, true)
    }
    return (OutputPath.join(parent, base + ".resume"), target, false)
  }

  /// Whether `path` is a run shard's journal (what `merge` finds beside shard folders in a glob).
  static func isJournal(_ path: String) -> Bool {
    path.hasSuffix(".resume") && FileManager.default.fileExists(atPath: path + "/" + lockName)
  }

  /// Opens (or makes) the journal of a shard writing to `directory` and takes its lock, resuming
  /// what it holds where that is whole and of this run (`files`: the per-row files the run
  /// writes). Nil when there can be none (a note on stderr says why, where it is not plain).
  static func open(directory: String, identity: String, files: [String], console: Console) -> RunShardJournal? {
    let (parent, _) = OutputPath.split(directory)
    guard (try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)) != nil else {
      return nil
    }
    ScenarioFile.removeStaleTemporaries(in: parent)
    let (folder, target, insideTarget) = Self.folder(for: directory)
    if insideTarget { ScenarioFile.removeStaleTemporaries(in: target) }
    guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { return nil }
    var status = stat()
    guard lstat(folder, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
      console.error("note: \(folder) is not a folder: the shard runs without a journal (a kill loses it whole)")
      return nil
    }
    // Another user's folder (on a shared file system) is never adopted: its rows would go into
    // this user's results.
    guard status.st_uid == geteuid() else {
      console.error("note: \(folder) belongs to another user: the shard runs without a journal")
      return nil
    }
    let lockPath = OutputPath.join(folder, lockName)
    let lock = Foundation.open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard lock >= 0 else { return nil }
    guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
      close(lock)
      console.error("note: another run of this shard holds \(folder): this one runs apart, without resuming")
      return nil
    }
    // Locked the file still at that path (not one a finishing run just carried away).
    guard isFile(lock, at: lockPath) else {
      close(lock)
      return nil
    }
    let staging = ResultSetWriter.Staging(target: target, folder: folder, kind: .run, insideTarget: insideTarget)
    let journal = RunShardJournal(staging: staging, identity: identity, lock: lock)
    journal.resumed = journal.readCheckpoint(files: files, console: console)
    journal.clear(keeping: journal.resumed.map { Set($0.files.map(\.name)) } ?? [])
    return journal
  }

  /// The checkpoint's progress and files, when it is of this run and every file it lists is
  /// whole up to it; nil otherwise (a note says why, where there was one).
  private func readCheckpoint(
    files: [String], console: Console
  ) -> (progress: RunProgress, files: [RunShardFile.FileEntry])? {
    let path = OutputPath.join(folder, Self.checkpointName)
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let distrust = { (why: String) -> (RunProgress, [RunShardFile.FileEntry])? in
      console.error("note: \(path) \(why): the shard starts again at its first part")
      return nil
    }
    guard let text = String(data: data, encoding: .utf8), let body = Self.checkpointBody(text) else {
      return distrust("is not a checkpoint this syncsim wrote")
    }
    guard body.hasPrefix(identity) else { return distrust("is of another run (scenario, seed, shard or version)") }
    // Its digest, then every number in range with room for the rest of the run to add to it
    // (issue 71, item 3: an Int64.max counter trapped the restarted task, and an in-range edit
    // flowed into the shard's results, which merge then trusted).
    guard let signed = SelfDigest.verified(String(body)) else {
      return distrust("does not match its digest (edited or cut short)")
    }
    let fields = TallyText(String(signed))
    if let problem = RunShardMerge.checkpointProblem(fields) { return distrust("holds \(problem)") }
    guard let progress = RunProgress(text: fields) else { return distrust("is malformed") }
    let entries: [RunShardFile.FileEntry]
    switch RunShardFile.FileEntry.entries(in: fields) {
    case .success(let read): entries = read
    case .failure(let problem): return distrust("has a \(problem.message)")
    }
    // A file is continued after its header: a checkpoint never counts an empty one.
    if let empty = entries.first(where: { $0.bytes == 0 }) { return distrust("counts \(empty.name) empty") }
    guard Set(entries.map(\.name)) == Set(files) else { return distrust("lists other files than this run writes") }
    for entry in entries {
      let found = RunShardFile.FileEntry.of(OutputPath.join(folder, entry.name), name: entry.name, limit: entry.bytes)
      guard found == entry else { return distrust("does not match \(entry.name) (cut short or edited)") }
    }
    return (progress, entries)
  }

  /// Removes what a run before left in the folder that this one does not go on from: result
  /// files, temporaries and the checkpoint, all but `kept` (and the lock). Anything else stays.
  private func clear(keeping kept: Set<String>) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    for name in names where !kept.contains(name) && name != Self.lockName {
      let removable =
        ResultSetWriter.runNames.contains(name) || ScenarioFile.isTemporaryName(name)
        || (name == Self.checkpointName && resumed == nil)
      if removable { unlink(OutputPath.join(folder, name)) }
    }
  }

  /// Records `progress` with the files' `entries` as they now stand (synced), replacing the
  /// checkpoint before; false when it cannot be written (the one before stays).
  @discardableResult
  func checkpoint(_ progress: RunProgress, entries: [RunShardFile.FileEntry]) -> Bool {
    let text = Self.format + "\n" + SelfDigest.signed(identity + progress.text + entries.map { $0.line + "\n" }.joined())
    let final = OutputPath.join(folder, Self.checkpointName)
    guard
      let temporary = try? ScenarioFile.writeExclusively(
        Array(text.utf8), beside: final, named: Self.checkpointName, in: folder)
    else { return false }
    guard rename(temporary, final) == 0 else {
      unlink(temporary)
      return false
    }
    ResultSetWriter.syncFolder(folder)
    return true
  }

  /// Lets the folder become the result set: the checkpoint goes. The lock stays, held.
  func prepareCommit() {
    unlink(OutputPath.join(folder, Self.checkpointName))
  }

  /// Removes the lock file a shard killed between its commit and `finishCommit` left in its
  /// finished result set, unless a live run still holds it (that run removes it itself). A shard
  /// that is kept, not run again, calls this: otherwise its set would keep the stray file (the
  /// kill check found one, 1 kill in about 400).
  static func removeStaleLock(in target: String) {
    let path = OutputPath.join(target, lockName)
    let lock = Foundation.open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
    guard lock >= 0 else { return }
    defer { close(lock) }
    // Unlinked only while it is the file locked here, not one a commit has just put in its place.
    guard flock(lock, LOCK_EX | LOCK_NB) == 0, isFile(lock, at: path) else { return }
    unlink(path)
  }

  /// Whether the open file `descriptor` is the one at `path` now (the same inode on the same device).
  private static func isFile(_ descriptor: Int32, at path: String) -> Bool {
    var opened = stat()
    var current = stat()
    return fstat(descriptor, &opened) == 0 && lstat(path, &current) == 0 && opened.st_ino == current.st_ino
      && opened.st_dev == current.st_dev
  }

  /// After the commit: the lock file goes from wherever the set took it (the result folder, after
  /// a rename or an exchange; the journal, after a move file by file, which then goes too if
  /// empty). The lock itself is released when the journal is let go.
  func finishCommit() {
    unlink(OutputPath.join(staging.target, Self.lockName))
    if unlink(OutputPath.join(folder, Self.lockName)) == 0 { rmdir(folder) }
  }
}
