/// A hand-written command-line parser in the shape of swift-argument-parser: positional
/// arguments, `--flag`, `--option value` and `--option=value`.
public struct ArgumentList {
  private(set) var remaining: [String]

  /// Wraps the arguments after the subcommand name.
  public init(_ arguments: [String]) { remaining = arguments }

  /// Removes `--name` if present; returns whether it was.
  public mutating func flag(_ name: String) -> Bool {
    if let index = remaining.firstIndex(of: "--" + name) {
      remaining.remove(at: index)
      return true
    }
    return false
  }

  /// Removes `--name value` or `--name=value`; returns the value, or nil if absent.
  public mutating func option(_ name: String) throws(UsageError) -> String? {
    let long = "--" + name
    for (index, argument) in remaining.enumerated() {
      if argument == long {
        guard index + 1 < remaining.count, !remaining[index + 1].hasPrefix("--") else {
          throw UsageError("option \(long) needs a value")
        }
        let value = remaining[index + 1]
        remaining.removeSubrange(index...(index + 1))
        return value
      }
      if argument.hasPrefix(long + "=") {
        remaining.remove(at: index)
        let value = String(argument.dropFirst(long.count + 1))
        guard !value.isEmpty else { throw UsageError("option \(long) needs a value after '='") }
        return value
      }
    }
    return nil
  }

  /// `text`, the value of `--option`, as a whole number in `range`; nil when absent. Otherwise
  /// a usage error: "--option must be 1…1024".
  public static func integer(_ text: String?, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
    guard let text else { return nil }
    guard let value = Int(text), range.contains(value) else {
      throw UsageError("--\(option) must be \(range.lowerBound)…\(range.upperBound)")
    }
    return value
  }

  /// Removes every `--name value` occurrence; returns the values in order.
  public mutating func options(_ name: String) throws(UsageError) -> [String] {
    var values: [String] = []
    while let value = try option(name) { values.append(value) }
    return values
  }

  /// Removes and returns the positional arguments; fails on any option left unrecognised.
  public mutating func positionals() throws(UsageError) -> [String] {
    if let unknown = remaining.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
      throw UsageError("unknown option \(unknown)")
    }
    defer { remaining = [] }
    return remaining
  }
}

/// A command-line mistake: printed with the command's usage, exit 64.
public struct UsageError: Error, Equatable {
  /// What was wrong, as a lowercase phrase.
  public var message: String
  public init(_ message: String) { self.message = message }
}
