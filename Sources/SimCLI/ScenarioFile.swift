import Foundation
import SimExperiments
import SimKernel
import SimMetrics
import SimScenario

/// Reading scenario files and writing result files.
enum ScenarioFile {
  /// Reads and decodes a scenario; problems come back with the file's name.
  /// A scenario over `RunEstimate`'s limits is refused unless `acceptLarge`.
  static func load(
    _ path: String, acceptLarge: Bool = false, shard: RunShard? = nil
  ) -> (scenario: Scenario?, bytes: [UInt8], problems: [ScenarioProblem]) {
    let bytes: [UInt8]
    switch readBounded(path, limit: ScenarioDecoder.Limits.maxFileBytes) {
    case .success(let read): bytes = read
    case .failure(let problem): return (nil, [], [problem])
    }
    do {
      let (scenario, warnings) = try ScenarioDecoder.decode(
        bytes, file: path, acceptLarge: acceptLarge, shard: shard.map { ShardWindow.Request(shard: $0) })
      return (scenario, bytes, warnings)
    } catch {
      return (nil, bytes, error.problems)
    }
  }

  /// The file's bytes, read only if it is a regular file of at most `limit` bytes: the size is
  /// checked before reading, and the read stops past the limit (a file that grows meanwhile, or a
  /// special file, never fills memory).
  static func readBounded(_ path: String, limit: Int) -> Result<[UInt8], ScenarioProblem> {
    let problem = { (message: String, hint: String?) in
      ScenarioProblem(file: path, path: "", message: message, hint: hint)
    }
    var status = stat()
    guard stat(path, &status) == 0 else {
      return .failure(problem(errno == ENOENT ? "no such file" : "cannot read the file", nil))
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else {
      return .failure(problem("not a regular file", "give a scenario file (a folder, device or pipe is not one)"))
    }
    guard Int(status.st_size) <= limit else {
      return .failure(
        problem("file is \(status.st_size) bytes, over the limit of \(limit)", "a scenario is a few kilobytes"))
    }
    guard let handle = FileHandle(forReadingAtPath: path) else { return .failure(problem("cannot read the file", nil)) }
    defer { try? handle.close() }
    let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
    guard data.count <= limit else {
      return .failure(problem("file is over the limit of \(limit) bytes", "a scenario is a few kilobytes"))
    }
    return .success([UInt8](data))
  }

  /// Whether `bytes` are a JSON Schema (its top-level `$schema` names a json-schema.org draft and
  /// it has `$defs` or `properties`) rather than a scenario.
  static func isJSONSchema(_ bytes: [UInt8]) -> Bool {
    guard let root = try? JSONParser.parse(bytes), case .object(let members) = root.value,
      let schema = members.first(where: { $0.key == "$schema" })?.value, case .string(let uri) = schema.value
    else { return false }
    return uri.contains("json-schema.org") && members.contains { $0.key == "$defs" || $0.key == "properties" }
  }

  /// Writes every file into `directory`: each goes to a temporary file first and is renamed into
  /// place, so an interrupted run leaves no half-written file under a final name.
  ///
  /// Temporaries are created exclusively (`O_CREAT|O_EXCL|O_NOFOLLOW`) under unpredictable
  /// names, so a link planted in the folder is never followed; a failure removes them; and
  /// temporaries left by a process that no longer runs (killed mid-write) are removed first.
  static func write(_ files: [(name: String, text: String)], to directory: String) throws {
    let manager = FileManager.default
    try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
    removeStaleTemporaries(in: directory)
    var temporaries: [(temporary: String, final: String)] = []
    defer { for entry in temporaries { unlink(entry.temporary) } }
    for file in files {
      let final = OutputPath.join(directory, file.name)
      let temporary = try writeExclusively(Array(file.text.utf8), beside: final, named: file.name, in: directory)
      temporaries.append((temporary, final))
    }
    try replace(temporaries, in: directory)
    temporaries.removeAll()
  }

  /// Renames each temporary over its final name. If one rename fails, the files already replaced
  /// get their previous versions back (kept as hard links until the end), so a failed write
  /// leaves the previous set whole rather than a mix of old and new files.
  static func replace(_ temporaries: [(temporary: String, final: String)], in directory: String) throws {
    let pid = ProcessInfo.processInfo.processIdentifier
    var backups: [(backup: String?, final: String)] = []
    defer { for entry in backups { if let backup = entry.backup { unlink(backup) } } }
    for entry in temporaries {
      var backup: String?
      let name = OutputPath.split(entry.final).name
      let candidate = OutputPath.join(
        directory, temporaryPrefix(name + ".previous", pid: pid) + String(UInt64.random(in: 0...UInt64.max), radix: 36))
      if link(entry.final, candidate) == 0 { backup = candidate }
      backups.append((backup, entry.final))
      if rename(entry.temporary, entry.final) != 0 {
        // Put back what this write replaced, newest first; a file that was new is removed.
        for done in backups.dropLast().reversed() {
          if let previous = done.backup { rename(previous, done.final) } else { unlink(done.final) }
        }
        backups.removeAll { $0.final != entry.final }
        throw OutputPath.failure(.fileWriteUnknown, entry.final)
      }
    }
  }

  /// The prefix of a temporary of `name` written by process `pid` on this host:
  /// `.NAME.tmp-PID-HOST-`, where `HOST` is `hostToken`.
  static func temporaryPrefix(_ name: String, pid: Int32, host: String = hostToken) -> String {
    ".\(name).tmp-\(pid)-\(host)-"
  }

  /// Eight base-36 characters naming this boot of this host and this process's PID namespace
  /// (FNV-1a of the kernel's `boot_id` and `/proc/self/ns/pid`; of the host's name where those
  /// are missing). A process id means something only there: a temporary made on another node of a
  /// shared file system, or in another container on a shared volume, carries another token, and
  /// stale clean-up never takes it for dead.
  static let hostToken: String = {
    var identity = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
    identity += (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? ""
    if identity.isEmpty { identity = ProcessInfo.processInfo.hostName }
    let text = String(StableHash.fnv1a(identity) % 2_821_109_907_456, radix: 36)  // 36^8
    return String(repeating: "0", count: 8 - text.count) + text
  }()

  /// Writes `bytes` to a new temporary file in `directory` and returns its path; the file is
  /// created exclusively and never through a link.
  static func writeExclusively(
    _ bytes: [UInt8], beside final: String, named name: String, in directory: String
  ) throws
    -> String
  {
    let pid = ProcessInfo.processInfo.processIdentifier
    for _ in 0..<16 {
      // File naming only, outside the model: results do not depend on it.
      let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
      let path = OutputPath.join(directory, temporaryPrefix(name, pid: pid) + suffix)
      let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
      if descriptor < 0 {
        if errno == EEXIST { continue }
        throw OutputPath.failure(.fileWriteNoPermission, final)
      }
      var failed = !bytes.withUnsafeBytes { writeAll($0, to: descriptor) }
      if fsync(descriptor) != 0 { failed = true }
      if close(descriptor) != 0 { failed = true }
      if failed {
        unlink(path)
        throw OutputPath.failure(.fileWriteOutOfSpace, final)
      }
      return path
    }
    throw OutputPath.failure(.fileWriteFileExists, final)
  }

  /// Removes temporaries (`.NAME.tmp-PID-SUFFIX`: files, and `ResultSetWriter`'s staging folders)
  /// whose process no longer runs. Only names of exactly that shape, as this program makes them
  /// (a process id in digits, a base-36 suffix), are touched: a user's `.notes.tmp-draft` or a
  /// link is not a temporary of ours.
  static func removeStaleTemporaries(in directory: String) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
    for name in names.sorted() {
      // Dead only where its process id means something: made on this host, in this PID namespace.
      guard let (base, pid, host) = temporaryParts(name), host == hostToken else { continue }
      guard pid != ProcessInfo.processInfo.processIdentifier && kill(pid, 0) != 0 && errno == ESRCH else { continue }
      let path = OutputPath.join(directory, name)
      var status = stat()
      guard lstat(path, &status) == 0 else { continue }
      switch status.st_mode & S_IFMT {
      case S_IFDIR:
        // A staging folder may hold the user's files hard-linked from the target it was for:
        // those names go too, each only while it is the same file as the target's.
        let target = OutputPath.join(directory, base)
        // Killed between its exchange and the move of the user's entries: those go back first.
        var targetStatus = stat()
        if lstat(target, &targetStatus) == 0 && (targetStatus.st_mode & S_IFMT) == S_IFDIR {
          ResultSetWriter.moveOwnEntries(from: path, to: target)
        }
        ResultSetWriter.removeFolder(path, newSet: target)
      case S_IFREG: unlink(path)
      default: continue  // a link or anything else was not made by this program
      }
    }
  }

  /// Whether `name` has the shape of a temporary this program makes.
  static func isTemporaryName(_ name: String) -> Bool { temporaryParts(name) != nil }

  /// `NAME`, `PID` and `HOST` of a temporary's name `.NAME.tmp-PID-HOST-SUFFIX` as this program
  /// makes them (a process id in digits, `hostToken`'s eight base-36 characters, a base-36 suffix
  /// of at most 13); nil for any other name. The older shape `.NAME.tmp-PID-SUFFIX` is a
  /// temporary too, with an empty host: recognised, never removed as stale.
  static func temporaryParts(_ name: String) -> (base: String, pid: Int32, host: String)? {
    guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards),
      marker.lowerBound > name.index(after: name.startIndex)
    else { return nil }
    let fields = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
    let isBase36 = { (field: Substring) in
      field.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."z").contains($0) }
    }
    guard fields.count == 2 || fields.count == 3, let pid = Int32(fields[0]), pid > 0, fields[0].allSatisfy(\.isASCII),
      let suffix = fields.last, !suffix.isEmpty, suffix.count <= 13, isBase36(suffix)
    else { return nil }
    let host = fields.count == 3 ? fields[1] : ""
    guard fields.count == 2 || (host.count == 8 && isBase36(host)) else { return nil }
    return (String(name[name.index(after: name.startIndex)..<marker.lowerBound]), pid, String(host))
  }

  /// Writes all of `bytes` to `descriptor`, retrying short and interrupted writes; false on error.
  static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
      let result = Foundation.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
      if result < 0 && errno == EINTR { continue }
      guard result > 0 else { return false }
      written += result
    }
    return true
  }
}
