/// One problem found in a scenario: where, what, and how to fix it.
public struct ScenarioProblem: Error, Equatable, Sendable {
  /// How serious: an error stops the run; a warning is a setting that likely does not do what
  /// was meant (`validate --strict` makes it an error); advice names a cost the scenario may take
  /// on purpose, and never fails anything.
  public enum Severity: String, Sendable {
    case error, warning, advice
  }

  public var file: String
  /// The JSON path, e.g. `devices[1].power.battery` (empty for the whole document).
  public var path: String
  public var message: String
  public var hint: String?
  public var severity: Severity

  public init(file: String, path: String, message: String, hint: String? = nil, severity: Severity = .error) {
    self.file = file
    self.path = path
    self.message = message
    self.hint = hint
    self.severity = severity
  }

  /// `file: path: message (hint)`, with `warning:` or `advice:` before those.
  public var description: String {
    var text = file + ": "
    if !path.isEmpty { text += path + ": " }
    if severity != .error { text += severity.rawValue + ": " }
    text += message
    if let hint { text += " (\(hint))" }
    return Self.printable(text)
  }

  /// `text` with control characters (C0, DEL, C1) and bidirectional controls written as `\u{1B}`:
  /// input echoed in a message can then neither move the cursor, clear the screen, start a fake
  /// line nor reorder the text around it (a right-to-left override, "Trojan Source").
  public static func printable(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      if isUnprintable(scalar) {
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

extension ScenarioProblem {
  /// Whether `scalar` is a control character (C0, DEL, C1), a bidirectional control (the marks
  /// U+200E, U+200F, U+061C, the embeddings and overrides U+202A–U+202E, the isolates
  /// U+2066–U+2069) or a line or paragraph separator (U+2028, U+2029).
  public static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
    default: false
    }
  }
}

/// Every problem found in a scenario (thrown when any is an error).
public struct ScenarioProblems: Error, Sendable {
  public var problems: [ScenarioProblem]
  public var hasErrors: Bool { problems.contains { $0.severity == .error } }

  public init(problems: [ScenarioProblem]) { self.problems = problems }
}
