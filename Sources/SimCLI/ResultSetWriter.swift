import Foundation
import SimMetrics
import SimScenario

/// Writes a run's result files as one set: into a fresh folder beside the target, streamed file
/// by file, then swapped with the target in one atomic exchange, so that a reader sees the whole
/// old set or the whole new one, and an interrupted or failed write leaves the old set untouched.
///
/// The staging folder is made by `mkdir` under an unpredictable name (`.NAME.tmp-PID-…`), so
/// nothing planted can be followed; its files are created exclusively inside it. A staging folder
/// left by a killed process is removed by the next write beside it (`removeStaleTemporaries`). The exchange is Linux's
/// `renameat2(RENAME_EXCHANGE)`; where it is missing, or the target folder holds files that are not
/// results (a folder of the user's own), the files are renamed into the target one by one with
/// rollback (`ScenarioFile.replace`), and only a reader during that moment can see a mix.
enum ResultSetWriter {
  /// The names a result folder may hold: what a run or `report` writes. A folder holding anything
  /// else is never swapped as a whole.
  static let resultNames: Set<String> = [
    "summary.csv", "resolved.json", "latency.csv", "activities.csv", "timeline.csv", "objects.csv", "trace.csv",
    "report.html",
  ]

  /// A staging folder beside the target, made before a run that writes files while it goes.
  struct Staging {
    let target: String
    let folder: String

    /// The path of `name` in the staging folder.
    func path(_ name: String) -> String { OutputPath.join(folder, name) }
  }

  static func write(_ files: [ResultFile], to directory: String) throws {
    let staging = try stage(directory)
    try commit(files, staging)
  }

  /// Makes the staging folder for a set of results bound for `directory`.
  static func stage(_ directory: String) throws -> Staging {
    let manager = FileManager.default
    let (parentPath, base) = OutputPath.split(directory)
    let target = OutputPath.join(parentPath, base)
    try manager.createDirectory(atPath: parentPath, withIntermediateDirectories: true)
    ScenarioFile.removeStaleTemporaries(in: parentPath)
    return Staging(target: target, folder: try makeStaging(named: base, in: parentPath))
  }

  /// Writes the files not yet written into the staging folder and swaps the set in; on any
  /// failure the staging folder is removed and the target left as it was.
  static func commit(_ files: [ResultFile], _ staged: Staging) throws {
    let manager = FileManager.default
    let (target, staging) = (staged.target, staged.folder)
    var committed = false
    defer { if !committed { removeFolder(staging) } }
    for file in files where !file.written {
      try stream(file, to: staged.path(file.name))
    }
    var isFolder: ObjCBool = false
    if !manager.fileExists(atPath: target, isDirectory: &isFolder) {
      guard rename(staging, target) == 0 else {
        throw OutputPath.failure(.fileWriteUnknown, target)
      }
      committed = true
      return
    }
    guard isFolder.boolValue else {
      throw OutputPath.failure(.fileWriteFileExists, target)
    }
    // A link to a folder is never swapped (that would move the link, not the folder).
    var status = stat()
    let isLink = lstat(target, &status) == 0 && (status.st_mode & S_IFMT) == S_IFLNK
    if !isLink, holdsOnlyResults(target), exchange(staging, target) {
      // The staging folder now holds the previous set: remove it.
      committed = false
      return
    }
    // A folder of the user's own (or no exchange): replace file by file, with rollback.
    ScenarioFile.removeStaleTemporaries(in: target)
    let moves = files.map {
      (
        temporary: staged.path($0.name),
        final: OutputPath.join(target, $0.name)
      )
    }
    try ScenarioFile.replace(moves, in: target)
  }

  /// Files opened in a staging folder for rows written while a run goes: each a stream whose
  /// chunks go straight to its file.
  final class OpenFiles: @unchecked Sendable {
    private var descriptors: [(name: String, descriptor: Int32)] = []
    private(set) var failure: String?

    /// A stream into `name`, created exclusively in `staging` (a stream that fails at its first
    /// chunk, and a failure recorded, when it cannot be).
    func stream(_ name: String, columns: [String], in staging: Staging) -> CSVStream {
      let path = staging.path(name)
      let descriptor = ResultSetWriter.createExclusively(path)
      if descriptor < 0 { failure = failure ?? path }
      descriptors.append((name, descriptor))
      return CSVStream(columns: columns) { [weak self] bytes in
        do {
          guard descriptor >= 0 else { throw OutputPath.failure(.fileWriteNoPermission, path) }
          try ResultSetWriter.write(bytes, to: descriptor, path: path)
        } catch {
          self?.failure = self?.failure ?? path
          throw error
        }
      }
    }

    /// Finishes the streams and closes every file; throws if any write or close failed.
    func closeAll(_ streams: [CSVStream]) throws {
      for stream in streams {
        do { try stream.finish() } catch { failure = failure ?? "a result file" }
      }
      for (name, descriptor) in descriptors where descriptor >= 0 {
        if close(descriptor) != 0 { failure = failure ?? name }
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
    guard close(descriptor) == 0 else { throw OutputPath.failure(.fileWriteOutOfSpace, path) }
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
  }

  /// Whether every entry of `folder` is a result file (a regular file by a result's name) or a
  /// temporary of one; anything else (a folder, a file of the user's) keeps the folder from being
  /// swapped as a whole.
  static func holdsOnlyResults(_ folder: String) -> Bool {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return false }
    return names.allSatisfy { name in
      if ScenarioFile.isTemporaryName(name) { return true }
      var status = stat()
      let path = OutputPath.join(folder, name)
      return resultNames.contains(name) && lstat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }
  }

  typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

  /// `renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)`, looked up at run time (glibc 2.28+).
  static let renameat2: RenameAt2? = {
    #if os(Linux)
      guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
      return unsafeBitCast(symbol, to: RenameAt2.self)
    #else
      return nil
    #endif
  }()

  /// Swaps two folders atomically; false when the system cannot.
  static func exchange(_ a: String, _ b: String) -> Bool {
    guard let renameat2 else { return false }
    let atCurrentDirectory: Int32 = -100
    let renameExchange: UInt32 = 2
    return renameat2(atCurrentDirectory, a, atCurrentDirectory, b, renameExchange) == 0
  }

  /// Removes a staging folder (or a previous set swapped into its place) without ever following a
  /// link: the folder is opened with `O_NOFOLLOW` and emptied through that descriptor
  /// (`unlinkat`), so a folder swapped for a link to somewhere else between the exchange and the
  /// clean-up loses nothing but the link itself. Only names a result set or its temporaries use
  /// are removed; anything else (a file some other process put there) is left, and so is the
  /// folder.
  static func removeFolder(_ folder: String) {
    let (parent, base) = OutputPath.split(folder)
    let parentDescriptor = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard parentDescriptor >= 0 else { return }
    defer { close(parentDescriptor) }
    let descriptor = openat(parentDescriptor, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard descriptor >= 0 else {
      // A link (ELOOP) or a file in the folder's place: remove that entry alone, never its target.
      var status = stat()
      if fstatat(parentDescriptor, base, &status, AT_SYMLINK_NOFOLLOW) == 0 && (status.st_mode & S_IFMT) != S_IFDIR {
        unlinkat(parentDescriptor, base, 0)
      }
      return
    }
    for name in entries(of: descriptor) where isRemovable(name) {
      var status = stat()
      guard fstatat(descriptor, name, &status, AT_SYMLINK_NOFOLLOW) == 0, (status.st_mode & S_IFMT) != S_IFDIR
      else { continue }
      unlinkat(descriptor, name, 0)
    }
    close(descriptor)
    // Fails, harmlessly, if anything was left or the name now stands for something else.
    unlinkat(parentDescriptor, base, AT_REMOVEDIR)
  }

  /// Whether a staging folder's entry `name` is one a result set writes: a result file or a
  /// temporary (`.NAME.tmp-PID-…`) of one.
  static func isRemovable(_ name: String) -> Bool {
    resultNames.contains(name) || ScenarioFile.isTemporaryName(name)
  }

  /// The names in the folder open at `descriptor` (read through a duplicate, so `descriptor`
  /// stays open), without `.` and `..`.
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
