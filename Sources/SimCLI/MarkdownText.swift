import SimScenario

/// Text from files and folders (scenario names, error messages, sweep fields) made safe to put in
/// a Markdown page that a CI job summary renders: it can neither end its line, table row or code
/// span, nor start markup (a heading, list, link, image, emphasis or raw HTML).
enum MarkdownText {
  /// `text` as literal inline text: control characters and line breaks written as `\u{A}`
  /// (`ScenarioProblem.printable`), every ASCII punctuation character that can start markup
  /// backslash-escaped (CommonMark lets any be), and `<`, `>` and `&` as entities, so that no
  /// renderer, even one that skips escapes, sees a tag.
  static func inline(_ text: String) -> String {
    var out = ""
    for scalar in ScenarioProblem.printable(text).unicodeScalars {
      switch scalar {
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "&": out += "&amp;"
      default:
        // Punctuation that never starts markup inside a line is kept readable; at the start of
        // the text, where a list item or a heading would begin, every mark is escaped.
        if isPunctuation(scalar) && (out.isEmpty || !harmless.contains(scalar)) { out += "\\" }
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Punctuation with no meaning inside a line of Markdown (GFM): kept as it is there.
  static let harmless: Set<Unicode.Scalar> = [".", ",", "-", "/", ":", ";", "=", "'", "\"", "%", "+", "?", "@", "$"]

  /// `text` as a code span: printable (no line break can end it), fenced by one backtick more
  /// than its longest run of backticks, padded when it starts or ends with one.
  static func code(_ text: String) -> String {
    let body = ScenarioProblem.printable(text)
    var longest = 0
    var run = 0
    for character in body {
      run = character == "`" ? run + 1 : 0
      longest = max(longest, run)
    }
    let fence = String(repeating: "`", count: longest + 1)
    let pad = body.hasPrefix("`") || body.hasSuffix("`") ? " " : ""
    return fence + pad + body + pad + fence
  }

  /// Whether `scalar` is ASCII punctuation in CommonMark's sense (what a backslash may escape).
  static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x21...0x2F, 0x3A...0x40, 0x5B...0x60, 0x7B...0x7E: true
    default: false
    }
  }
}
