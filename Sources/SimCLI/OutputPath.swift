import Foundation

/// Checks an output path given on the command line before anything is run or written.
///
/// A result set replaces its folder as a whole (`ResultSetWriter`), so the folder must be one
/// that can be replaced: not the folder the user stands in (`.`, `./`, `./.`) or one above it
/// (`..`, `/`), whose exchange would leave the shell in a removed folder. Names are bounded so
/// that a temporary beside them (`.NAME.tmp-PID-SUFFIX`, 31 bytes more) still fits the file
/// system's 255 bytes.
enum OutputPath {
  /// The longest last component of an output path, in bytes.
  static let maxNameBytes = 200

  /// `path` as a folder a result set can replace, trailing slashes removed; a usage error naming
  /// `option` and a way out otherwise.
  static func folder(_ path: String, option: String) throws(UsageError) -> String {
    let trimmed = try common(path, option: option)
    let name = split(trimmed).name
    if name == "." || name == ".." || trimmed == "/" || encloses(trimmed, FileManager.default.currentDirectoryPath) {
      throw UsageError(
        "\(option) \(path) is the current folder or one above it, which a result set would replace as a whole; "
          + "name a folder of its own, e.g. \(option) results")
    }
    return trimmed
  }

  /// `path` as a file to write (the report's `--out`): not a folder, not ending in `/`.
  static func file(_ path: String, option: String) throws(UsageError) -> String {
    let trimmed = try common(path, option: option)
    let name = split(trimmed).name
    var isFolder: ObjCBool = false
    if path.hasSuffix("/") || name == "." || name == ".." || trimmed == "/"
      || (FileManager.default.fileExists(atPath: trimmed, isDirectory: &isFolder) && isFolder.boolValue)
    {
      throw UsageError("\(option) \(path) is a folder; name the file to write, e.g. \(option) report.html")
    }
    return trimmed
  }

  /// The checks every output path gets: not empty, no NUL, a name of at most `maxNameBytes`.
  static func common(_ path: String, option: String) throws(UsageError) -> String {
    guard !path.isEmpty else { throw UsageError("\(option) needs a path") }
    guard !path.utf8.contains(0) else { throw UsageError("\(option) holds a NUL byte") }
    var trimmed = path
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
    let name = split(trimmed).name
    if name.utf8.count > maxNameBytes {
      throw UsageError(
        "\(option): a name of \(name.utf8.count) bytes is over the limit of \(maxNameBytes) "
          + "(temporaries beside it add 31 bytes to a file system's 255)")
    }
    return trimmed
  }

  /// Whether the folder at `path` is `directory` or a folder above it, compared as real paths
  /// (links resolved). A path that does not exist yet encloses nothing.
  static func encloses(_ path: String, _ directory: String) -> Bool {
    guard let outer = realPath(path), let inner = realPath(directory) else { return false }
    return inner == outer || outer == "/" || inner.hasPrefix(outer + "/")
  }

  /// `path`'s folder and last component: `a/b` is (`a`, `b`), `b` is (`.`, `b`), `/b` is (`/`, `b`).
  /// Written here because Foundation's `NSString` path methods trap on a one-character path on
  /// Linux (swift-corelibs-foundation with Swift 6.3: `--out r` stopped with SIGILL).
  static func split(_ path: String) -> (folder: String, name: String) {
    var trimmed = Substring(path)
    while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return (".", String(trimmed)) }
    let folder = trimmed[..<slash]
    return (folder.isEmpty ? "/" : String(folder), String(trimmed[trimmed.index(after: slash)...]))
  }

  /// `name` inside `folder`.
  static func join(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
  }

  /// A failure to write `path`, with the system's reason (`errno` as it stands at the call).
  static func failure(_ code: CocoaError.Code, _ path: String) -> CocoaError {
    let number = errno
    var info: [String: Any] = [NSFilePathErrorKey: path]
    if number != 0, let posix = POSIXErrorCode(rawValue: number) { info[NSUnderlyingErrorKey] = POSIXError(posix) }
    return CocoaError(code, userInfo: info)
  }

  /// What went wrong, in words: the path and the system's reason ("No space left on device"),
  /// not Foundation's "The operation could not be completed (NSCocoaErrorDomain error 512)".
  static func describe(_ error: any Error) -> String {
    guard let cocoa = error as? CocoaError else {
      if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
      return "\(error)"
    }
    var reason: String
    if let posix = cocoa.userInfo[NSUnderlyingErrorKey] as? POSIXError {
      reason = String(cString: strerror(posix.code.rawValue))
    } else {
      switch cocoa.code {
      case .fileWriteOutOfSpace: reason = "a write failed (the disk may be full)"
      case .fileWriteNoPermission: reason = "permission denied, or a link or file is in the way"
      case .fileWriteFileExists: reason = "something of that name is in the way"
      case .fileWriteVolumeReadOnly: reason = "the file system is read-only"
      case .fileNoSuchFile, .fileReadNoSuchFile: reason = "no such file or folder"
      default: reason = "the file system refused it (Cocoa error \(cocoa.code.rawValue))"
      }
    }
    if let path = cocoa.userInfo[NSFilePathErrorKey] as? String { return "\(path): \(reason)" }
    return reason
  }

  static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
