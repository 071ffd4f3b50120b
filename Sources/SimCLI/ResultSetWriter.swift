import Foundation
import SimKernel
import SimMetrics
import SimScenario

/// Writes a result set (a run's files, or a sweep's with its `points/`) as one set: into a fresh
/// folder beside the target, streamed file by file and synced to disk, then swapped with the
/// target in one atomic exchange, so that a reader sees the whole old set or the whole new one,
/// and an interrupted or failed write leaves the old set untouched. Two writers into one folder
/// end with one whole set, the last one's.
///
/// The staging folder is made by `mkdir` under an unpredictable name (`.NAME.tmp-PID-…`), so
/// nothing planted can be followed; its files are created exclusively inside it. The user's own
/// regular files in the target (notes beside the results) are hard-linked into the staging folder
/// before the exchange, so they stay beside the new set. A staging folder left by a killed process
/// is removed by the next write beside it (`removeStaleTemporaries`). The exchange is Linux's
/// `renameat2(RENAME_EXCHANGE)`; where it is missing, where the target is a link, or where it holds
/// something that cannot be linked (a folder of the user's own), the files are renamed into the
/// target one by one with rollback (`ScenarioFile.replace`), and only a reader during that moment
/// can see a mix.
enum ResultSetWriter {
  /// Which set a folder holds: the names it writes, and so the names it replaces.
  enum Kind: Sendable {
    case run, sweep, trace, fit, sensitivity

    var names: Set<String> {
      switch self {
      case .run: ResultSetWriter.runNames
      case .sweep: ResultSetWriter.sweepNames
      case .trace: ResultSetWriter.traceNames
      case .fit: ResultSetWriter.fitNames
      case .sensitivity: ResultSetWriter.sensitivityNames
      }
    }
  }

  /// What a run or `report` writes.
  static let runNames: Set<String> = [
    "summary.csv", "resolved.json", "latency.csv", "activities.csv", "timeline.csv", "states.csv", "objects.csv",
    "trace.csv", "report.html", "datapackage.json", "run-shard.txt", "partial.txt",
  ]
  /// What `sweep` or `merge` writes; `points` holds a folder per point.
  static let sweepNames: Set<String> = [
    "sweep.csv", "sweep-summary.csv", "shard.txt", "report.html", "points", "datapackage.json", "partial.txt",
  ]
  /// What `trace` writes (a run's files, pushes and findings) and what `fit` writes.
  static let traceNames: Set<String> = runNames.union(["pushes.csv", "findings.csv"])
  static let fitNames: Set<String> = [
    "twin.json", "fit.csv", "summaries.csv", "generations.csv", "posterior.csv", "report.html", "checks.csv",
  ]
  /// What `sensitivity` writes.
  static let sensitivityNames: Set<String> = [
    "sensitivity.csv", "sensitivity-points.csv", "sensitivity.html", "sensitivity-runs.csv", "shard.txt",
  ]
  /// Every name a result set of any kind writes (what a removal may take).
  static let resultNames = runNames.union(sweepNames).union(traceNames).union(fitNames).union(sensitivityNames)

  /// A staging folder beside the target, made before a run that writes files while it goes.
  struct Staging {
    let target: String
    let folder: String
    var kind = Kind.run
    /// Whether the staging folder lies inside the target (a mount point, which cannot be
    /// exchanged or renamed over): the files then move into it one by one.
    var insideTarget = false

    /// The path of `name` in the staging folder.
    func path(_ name: String) -> String { OutputPath.join(folder, name) }
  }

  static func write(_ files: [ResultFile], to directory: String, kind: Kind = .run) throws {
    let staging = try stage(directory, kind: kind)
    try commit(files, staging)
  }

  /// Makes the staging folder for a set of results bound for `directory`.
  static func stage(_ directory: String, kind: Kind = .run) throws -> Staging {
    let manager = FileManager.default
    var (parentPath, base) = OutputPath.split(directory)
    var target = OutputPath.join(parentPath, base)
    // A link to a folder (a results folder kept elsewhere): the folder it names is replaced, by
    // the same exchange as any folder, and the link is left as it is. Renaming the set into it file
    // by file left a mix when killed (issue 71, item 6: 1 kill in 112).
    if let resolved = linkedFolder(target) {
      (parentPath, base) = OutputPath.split(resolved)
      target = resolved
    }
    try manager.createDirectory(atPath: parentPath, withIntermediateDirectories: true)
    ScenarioFile.removeStaleTemporaries(in: parentPath)
    var targetStatus = stat()
    let targetIsFolder = lstat(target, &targetStatus) == 0 && (targetStatus.st_mode & S_IFMT) == S_IFDIR
    // A mount point (a container's volume, a tmpfs) is on another file system than its parent: a
    // staging folder beside it could not be renamed into it, so it is made inside.
    let insideTarget = targetIsFolder && isMountPoint(target, status: targetStatus)
    if insideTarget { ScenarioFile.removeStaleTemporaries(in: target) }
    let folder = try makeStaging(named: base, in: insideTarget ? target : parentPath)
    return Staging(target: target, folder: folder, kind: kind, insideTarget: insideTarget)
  }

  /// The folder a link at `path` names, resolved to its real path; nil when `path` is no link
  /// to a folder.
  static func linkedFolder(_ path: String) -> String? {
    var status = stat()
    guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK, stat(path, &status) == 0,
      (status.st_mode & S_IFMT) == S_IFDIR, let resolved = realpath(path, nil)
    else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// Whether the folder at `path` (whose `lstat` is `status`) is on another device than its
  /// parent, is the root of its file system, or is listed as a mount point in
  /// `/proc/self/mountinfo`: a bind mount of a folder of the same file system (Kubernetes
  /// `subPath` and `hostPath` volumes, `docker -v` of a folder under the container's own) shares
  /// its parent's `st_dev`, and a rename across it fails with EXDEV (issue 71: the run was lost at
  /// its end, exit 73 "Invalid cross-device link").
  static func isMountPoint(_ path: String, status: stat) -> Bool {
    var parent = stat()
    guard stat(OutputPath.join(path, ".."), &parent) == 0 else { return false }
    if parent.st_dev != status.st_dev || parent.st_ino == status.st_ino { return true }
    guard let resolved = realpath(path, nil) else { return false }
    defer { free(resolved) }
    return mountPoints().contains(String(cString: resolved))
  }

  /// The mount points `/proc/self/mountinfo` lists (its fifth field, with `\040`-style octal
  /// escapes undone); empty where there is no such file (macOS).
  static func mountPoints() -> Set<String> {
    guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
    var points = Set<String>()
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: false)
      guard fields.count > 4 else { continue }
      points.insert(unescapedMountPath(fields[4]))
    }
    return points
  }

  /// A mountinfo path with its octal escapes (`\040` for a space, `\011` a tab, `\012` a newline,
  /// `\134` a backslash) undone.
  static func unescapedMountPath(_ field: Substring) -> String {
    var bytes: [UInt8] = []
    let raw = Array(field.utf8)
    var index = 0
    while index < raw.count {
      if raw[index] == UInt8(ascii: "\\"), index + 3 < raw.count,
        let value = UInt8(String(decoding: raw[index + 1...index + 3], as: UTF8.self), radix: 8)
      {
        bytes.append(value)
        index += 4
      } else {
        bytes.append(raw[index])
        index += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Gives the staging folder the target folder's owner, group and mode (with its setgid and
  /// sticky bits), so that the swapped-in set is as private, or as shared with a group, as the
  /// folder it replaces. Best effort: a user who may not give a file away keeps what `mkdir` made.
  static func keepOwnership(of folder: String, as target: stat) {
    _ = chown(folder, target.st_uid, target.st_gid)
    _ = chmod(folder, target.st_mode & 0o7777)
  }

  /// Writes the files not yet written into the staging folder, syncs them and swaps the set in;
  /// on any failure the staging folder is removed and the target left as it was.
  static func commit(_ files: [ResultFile], _ staged: Staging) throws {
    let (target, staging) = (staged.target, staged.folder)
    var committed = false
    defer { if !committed { removeFolder(staging) } }
    for file in files where !file.written {
      try makeFolders(for: file.name, in: staging)
      try stream(file, to: staged.path(file.name))
    }
    syncFolders(staging, files.map(\.name))
    let parent = OutputPath.split(target).folder
    var status = stat()
    if staged.insideTarget {
      try replaceFileByFile(files, staged)
      return
    }
    if lstat(target, &status) != 0 {
      if rename(staging, target) == 0 {
        syncFolder(parent)
        committed = true
        return
      }
      // Another writer made the folder meanwhile: exchange with what it wrote.
      guard errno == EEXIST || errno == ENOTEMPTY, lstat(target, &status) == 0 else {
        throw OutputPath.failure(.fileWriteUnknown, target)
      }
    }
    let kind = status.st_mode & S_IFMT
    guard kind == S_IFDIR || kind == S_IFLNK else { throw OutputPath.failure(.fileWriteFileExists, target) }
    // A link to a folder is never swapped (that would move the link, not the folder).
    if kind == S_IFDIR, let carried = carryOwnEntries(of: target, into: staging, kind: staged.kind) {
      // Given only now that its files are written: a folder the owner may not write (0555) could
      // not have been filled.
      keepOwnership(of: staging, as: status)
      if exchange(staging, target) {
        syncFolder(parent)
        // The staging folder now holds the previous set. What of the user's is there and not in
        // the new set (a folder, a link, a note made during the write) moves across; then the
        // previous set goes, and the user's files that now stand in the new set too.
        moveOwnEntries(from: staging, to: target)
        syncFolder(target)
        removeFolder(staging, newSet: target)
        committed = true
        return
      }
      for name in carried { unlink(staged.path(name)) }
    }
    try replaceFileByFile(files, staged)
  }

  /// Moves each entry of `from` that is not a result set's name nor a temporary into `to`,
  /// where `to` has nothing of that name: the user's folders, links and late files, carried
  /// from a previous set to the new one (or back from a staging folder left by a killed write).
  static func moveOwnEntries(from: String, to: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: from) else { return }
    for name in names.sorted() where !resultNames.contains(name) && !isOwnName(name) {
      // Never over a name `to` has (the user's file linked into the new set, or one made
      // meanwhile): the rename fails there, and the race is lost to the user's own entry.
      _ = renameNoReplace(OutputPath.join(from, name), OutputPath.join(to, name))
    }
  }

  /// Whether `name` is this program's, never the user's: a temporary, or a shard journal's lock
  /// file. A run shard killed between its exchange and the removal of its lock left the lock in
  /// the result set; carried as the user's file, it outlived the next run's commit (the kill
  /// check found the resumed shard's folder with it, 1 kill in about 300).
  static func isOwnName(_ name: String) -> Bool {
    ScenarioFile.isTemporaryName(name) || name == RunShardJournal.lockName
  }

  /// `renameat2(RENAME_NOREPLACE)`: renames unless `b` exists; false when it does, or cannot.
  static func renameNoReplace(_ a: String, _ b: String) -> Bool {
    guard let renameat2 else { return false }
    let atCurrentDirectory: Int32 = -100
    let renameNoReplace: UInt32 = 1
    return renameat2(atCurrentDirectory, a, atCurrentDirectory, b, renameNoReplace) == 0
  }

  /// Replaces the target's files one by one, with rollback: where no exchange is possible (no
  /// `renameat2`, a target that is a link, or a mount point).
  static func replaceFileByFile(_ files: [ResultFile], _ staged: Staging) throws {
    let target = staged.target
    ScenarioFile.removeStaleTemporaries(in: target)
    var moves: [(temporary: String, final: String)] = []
    for file in files {
      try makeFolders(for: file.name, in: target)
      moves.append((staged.path(file.name), OutputPath.join(target, file.name)))
    }
    try ScenarioFile.replace(moves, in: target)
  }

  /// Hard-links the target's regular files that are not of this set into the staging folder, so
  /// the exchange keeps them beside the new set throughout; the user's folders and links move
  /// across after the exchange (`moveOwnEntries`). Nil when a result's name stands for something
  /// else (a folder called `timeline.csv`), and then none is carried.
  static func carryOwnEntries(of target: String, into staging: String, kind: Kind) -> [String]? {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: target) else { return nil }
    var carried: [String] = []
    for name in names.sorted() where !isOwnName(name) {
      var status = stat()
      let path = OutputPath.join(target, name)
      let type = lstat(path, &status) == 0 ? status.st_mode & S_IFMT : 0
      // A result's name on something else (a folder called timeline.csv) would be hidden in the
      // old set; a folder or link of the user's cannot be linked: then that folder is not swapped.
      if kind.names.contains(name) {
        guard type == (name == "points" ? S_IFDIR : S_IFREG) else {
          for done in carried { unlink(OutputPath.join(staging, done)) }
          return nil
        }
      } else if type == S_IFREG && link(path, OutputPath.join(staging, name)) == 0 {
        carried.append(name)
      }
    }
    return carried
  }

  /// The folders a file's relative `name` (`points/point-0001/scenario.json`) lies in, under
  /// `root`, outermost first.
  static func folders(of name: String, in root: String) -> [String] {
    var path = root
    return name.split(separator: "/").dropLast().map { component in
      path = OutputPath.join(path, String(component))
      return path
    }
  }

  /// Makes the folders a file's relative `name` lies in.
  static func makeFolders(for name: String, in root: String) throws {
    for path in folders(of: name, in: root) where mkdir(path, 0o755) != 0 && errno != EEXIST {
      throw OutputPath.failure(.fileWriteNoPermission, path)
    }
  }

  /// Syncs the staging folder and the folders of `names` in it, so that the exchange publishes
  /// what is on disk (the files themselves are synced as they are closed).
  static func syncFolders(_ root: String, _ names: [String]) {
    let all = Set([root] + names.flatMap { folders(of: $0, in: root) })
    for folder in all.sorted() { syncFolder(folder) }
  }

  /// `fsync` of a folder (its entries), best effort.
  static func syncFolder(_ path: String) {
    let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    close(descriptor)
  }

  /// Files opened in a staging folder for rows written while a run goes: each a stream whose
  /// chunks go straight to its file.
  ///
  /// With `tracksContent`, each file's length, lines and FNV-1a digest are kept as its chunks go
  /// (`entries`), for a shard's checkpoint (`RunShardJournal`).
  final class OpenFiles: @unchecked Sendable {
    private var descriptors: [(name: String, descriptor: Int32)] = []
    /// Per file opened, in order: its name, and lines, bytes and FNV-1a state so far (with
    /// `tracksContent`). Kept past `closeAll`, for the manifest.
    private var written: [(name: String, lines: Int, bytes: Int, hash: UInt64)] = []
    private(set) var failure: String?
    let tracksContent: Bool
    /// Files a resumed shard's earlier run wrote, by name: continued, not created.
    var continued: [RunShardFile.FileEntry] = []

    init(tracksContent: Bool = false) { self.tracksContent = tracksContent }

    /// A stream into `name`, created exclusively in `staging`, or continued after the bytes
    /// `continued` lists for it (a stream that fails at its first chunk, and a failure recorded,
    /// when it cannot be).
    func stream(_ name: String, columns: [String], in staging: Staging) -> CSVStream {
      let path = staging.path(name)
      let earlier = continued.first { $0.name == name }
      let descriptor =
        earlier.map { Self.openToContinue(path, after: $0.bytes) } ?? ResultSetWriter.createExclusively(path)
      if descriptor < 0 { failure = failure ?? path }
      let index = descriptors.count
      descriptors.append((name, descriptor))
      written.append(
        earlier.map { (name, $0.rows + 1, $0.bytes, UInt64($0.digest, radix: 16) ?? 0) }
          ?? (name, 0, 0, StableHash.fnv1aBasis))
      return CSVStream(columns: columns, header: earlier == nil) { [weak self] bytes in
        do {
          guard descriptor >= 0 else { throw OutputPath.failure(.fileWriteNoPermission, path) }
          try ResultSetWriter.write(bytes, to: descriptor, path: path)
          self?.count(bytes, into: index)
        } catch {
          self?.failure = self?.failure ?? path
          throw error
        }
      }
    }

    private func count(_ bytes: [UInt8], into index: Int) {
      guard tracksContent else { return }
      bytes.withUnsafeBytes { raw in
        written[index].hash = StableHash.fnv1a(raw, from: written[index].hash)
        written[index].lines += raw.count { $0 == 0x0A }
      }
      written[index].bytes += bytes.count
    }

    /// Opens the file at `path` to write after its first `bytes` (the rest, written after the
    /// last checkpoint, is cut off), never through a link; −1 when it cannot.
    static func openToContinue(_ path: String, after bytes: Int) -> Int32 {
      let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
      guard descriptor >= 0 else { return -1 }
      guard ftruncate(descriptor, off_t(bytes)) == 0, lseek(descriptor, 0, SEEK_END) == off_t(bytes) else {
        close(descriptor)
        return -1
      }
      return descriptor
    }

    /// Hands over what `streams` buffer and syncs every file to disk; then each file's entry as
    /// it now stands (with `tracksContent`). Nil when a write or sync failed.
    func synced(_ streams: [CSVStream]) -> [RunShardFile.FileEntry]? {
      for stream in streams {
        do { try stream.finish() } catch { failure = failure ?? "a result file" }
      }
      guard failure == nil else { return nil }
      for (_, descriptor) in descriptors where fsync(descriptor) != 0 { return nil }
      return entries
    }

    /// Each file's entry as written so far (with `tracksContent`), in the order they were opened.
    var entries: [RunShardFile.FileEntry] {
      written.map { RunShardFile.FileEntry(name: $0.name, lines: $0.lines, bytes: $0.bytes, hash: $0.hash) }
    }

    /// Finishes the streams and closes every file; throws if any write or close failed.
    func closeAll(_ streams: [CSVStream]) throws {
      for stream in streams {
        do { try stream.finish() } catch { failure = failure ?? "a result file" }
      }
      for (name, descriptor) in descriptors where descriptor >= 0 {
        if fsync(descriptor) != 0 || close(descriptor) != 0 { failure = failure ?? name }
      }
      descriptors = []
      if let failure { throw OutputPath.failure(.fileWriteOutOfSpace, failure) }
    }
  }

  /// Creates `.NAME.tmp-PID-RANDOM` exclusively (mkdir fails on anything already there).
  static func makeStaging(named name: String, in parent: String) throws -> String {
    let pid = ProcessInfo.processInfo.processIdentifier
    for _ in 0..<16 {
      let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
      let path = OutputPath.join(parent, ScenarioFile.temporaryPrefix(name, pid: pid) + suffix)
      if mkdir(path, 0o755) == 0 { return path }
      if errno != EEXIST { throw OutputPath.failure(.fileWriteNoPermission, path) }
    }
    throw OutputPath.failure(.fileWriteFileExists, parent)
  }

  /// Streams one file into the staging folder, created exclusively and never through a link.
  static func stream(_ file: ResultFile, to path: String) throws {
    let descriptor = createExclusively(path)
    guard descriptor >= 0 else { throw OutputPath.failure(.fileWriteNoPermission, path) }
    var closed = false
    defer { if !closed { close(descriptor) } }
    try file.produce { bytes in try write(bytes, to: descriptor, path: path) }
    closed = true
    guard fsync(descriptor) == 0, close(descriptor) == 0 else { throw OutputPath.failure(.fileWriteOutOfSpace, path) }
  }

  /// Creates `path` for writing, exclusively and never through a link; −1 when it cannot.
  static func createExclusively(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
  }

  /// Writes all of `bytes` to `descriptor`, or throws naming `path`.
  static func write(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
    guard bytes.withUnsafeBytes({ ScenarioFile.writeAll($0, to: descriptor) }) else {
      throw OutputPath.failure(.fileWriteOutOfSpace, path)
    }
    startWriteback(descriptor)
  }

  /// Asks the kernel to start writing the file's dirty pages now, without waiting, so that the
  /// `fsync` before the exchange finds most of a large file already on disk (the write-back
  /// overlaps the rest of the run instead of adding to its end). Linux only; a no-op elsewhere.
  static func startWriteback(_ descriptor: Int32) {
    let writeOnly: UInt32 = 2  // SYNC_FILE_RANGE_WRITE
    _ = syncFileRange?(descriptor, 0, 0, writeOnly)
  }

  typealias SyncFileRange = @convention(c) (Int32, Int64, Int64, UInt32) -> Int32
  typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

  /// `sync_file_range`, looked up at run time (Glibc's module does not declare it).
  static let syncFileRange = systemFunction("sync_file_range", as: SyncFileRange.self)
  /// `renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)`, looked up at run time (glibc 2.28+).
  static let renameat2 = systemFunction("renameat2", as: RenameAt2.self)

  /// A C library function by name, where the system has it (Linux); nil elsewhere.
  static func systemFunction<Function>(_ name: String, as type: Function.Type) -> Function? {
    #if os(Linux)
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
      return unsafeBitCast(symbol, to: type)
    #else
      return nil
    #endif
  }

  /// Swaps two folders atomically; false when the system cannot.
  static func exchange(_ a: String, _ b: String) -> Bool {
    guard let renameat2 else { return false }
    let atCurrentDirectory: Int32 = -100
    let renameExchange: UInt32 = 2
    return renameat2(atCurrentDirectory, a, atCurrentDirectory, b, renameExchange) == 0
  }

  /// Removes a staging folder (or a previous set swapped into its place) without ever following a
  /// link: each folder is opened with `O_NOFOLLOW` and emptied through its descriptor
  /// (`unlinkat`), so a folder swapped for a link to somewhere else between the exchange and the
  /// clean-up loses nothing but the link itself. Only names a result set or its temporaries use
  /// are removed (and in `points/`, point folders and their scenarios), and, given `newSet`, the
  /// user's files that were hard-linked into it: each only while it is the same file there.
  /// Anything else is left, and so is the folder.
  static func removeFolder(_ folder: String, newSet: String? = nil) {
    let (parent, base) = OutputPath.split(folder)
    let parentDescriptor = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard parentDescriptor >= 0 else { return }
    defer { close(parentDescriptor) }
    let kept = newSet.map { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) } ?? -1
    defer { if kept >= 0 { close(kept) } }
    removeTree(base, in: parentDescriptor, depth: 0) { name, descriptor in
      guard kept >= 0 else { return false }
      var old = stat()
      var new = stat()
      return fstatat(descriptor, name, &old, AT_SYMLINK_NOFOLLOW) == 0
        && fstatat(kept, name, &new, AT_SYMLINK_NOFOLLOW) == 0 && old.st_ino == new.st_ino
        && old.st_dev == new.st_dev
    }
  }

  /// Empties and removes the folder `name` of the folder open at `parent`, by descriptor; a link or
  /// file in its place is removed itself (never what it points to) at the top only.
  static func removeTree(
    _ name: String, in parent: Int32, depth: Int, alsoRemovable: (String, Int32) -> Bool = { _, _ in false }
  ) {
    let descriptor = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      var status = stat()
      if depth == 0, fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) == 0, (status.st_mode & S_IFMT) != S_IFDIR {
        unlinkat(parent, name, 0)
      }
      return
    }
    for entry in entries(of: descriptor) {
      var status = stat()
      guard fstatat(descriptor, entry, &status, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
      let isFolder = (status.st_mode & S_IFMT) == S_IFDIR
      if isFolder {
        if isRemovableFolder(entry, depth: depth + 1) { removeTree(entry, in: descriptor, depth: depth + 1) }
      } else if isRemovable(entry, depth: depth + 1) || (depth == 0 && alsoRemovable(entry, descriptor)) {
        unlinkat(descriptor, entry, 0)
      }
    }
    close(descriptor)
    // Fails, harmlessly, if anything was left or the name now stands for something else.
    unlinkat(parent, name, AT_REMOVEDIR)
  }

  /// Whether a file `name` at `depth` (1: the set's folder, 2: `points/`, 3: a point's folder) is
  /// one a result set writes.
  static func isRemovable(_ name: String, depth: Int) -> Bool {
    if ScenarioFile.isTemporaryName(name) { return true }
    switch depth {
    case 1: return resultNames.contains(name)
    case 3: return name == "scenario.json" || name == "resolved.json"
    default: return false
    }
  }

  /// Whether a folder `name` at `depth` is one a result set writes: `points`, and a point's own.
  static func isRemovableFolder(_ name: String, depth: Int) -> Bool {
    switch depth {
    case 1: return name == "points"
    case 2: return name.hasPrefix("point-") && name.dropFirst(6).allSatisfy(\.isNumber)
    default: return false
    }
  }

  /// The names in the folder open at `descriptor` (read through a duplicate, so `descriptor`
  /// stays open), without `.` and `..`, sorted.
  static func entries(of descriptor: Int32) -> [String] {
    let copy = dup(descriptor)
    guard copy >= 0, let directory = fdopendir(copy) else {
      if copy >= 0 { close(copy) }
      return []
    }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }
}
