import Foundation

/// Where a command writes: results to `out`, diagnostics to `err`. Tests capture both.
public final class Console: @unchecked Sendable {
  private let writeOut: (String) -> Void
  private let writeErr: (String) -> Void
  /// Whether stderr is an interactive terminal (progress lines appear only then).
  public let errIsTerminal: Bool

  /// A console with custom sinks (tests).
  public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void, errIsTerminal: Bool = false) {
    writeOut = out
    writeErr = err
    self.errIsTerminal = errIsTerminal
  }

  /// The process's standard output and error.
  public static func standard() -> Console {
    Console(
      out: { FileHandle.standardOutput.write(Data($0.utf8)) },
      err: { FileHandle.standardError.write(Data($0.utf8)) },
      errIsTerminal: isatty(2) == 1)
  }

  /// Writes a line to standard output.
  public func print(_ line: String = "") { writeOut(line + "\n") }
  /// Writes a line to standard error.
  public func error(_ line: String) { writeErr(line + "\n") }
  /// Writes raw text to standard error (progress lines ending in a carriage return).
  public func errorRaw(_ text: String) { writeErr(text) }
}

/// A `Console` that keeps everything in memory, for tests.
public final class CapturedConsole: @unchecked Sendable {
  /// The text written so far; shared with the console's closures, so the console stays valid
  /// however long it lives.
  final class Buffer: @unchecked Sendable {
    let lock = NSLock()
    var out = ""
    var err = ""
  }

  private let buffer = Buffer()
  /// The console that writes here.
  public let console: Console

  public init() {
    let buffer = self.buffer
    console = Console(
      out: { text in buffer.lock.withLock { buffer.out += text } },
      err: { text in buffer.lock.withLock { buffer.err += text } })
  }

  /// Everything written to standard output.
  public var out: String { buffer.lock.withLock { buffer.out } }
  /// Everything written to standard error.
  public var err: String { buffer.lock.withLock { buffer.err } }
}
