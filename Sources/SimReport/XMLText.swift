/// Text made safe for XML content and attribute values (the report's SVG and HTML, the JUnit file).
///
/// Every text that comes from a scenario or a result folder is hostile: a device name, a CSV
/// field, a column header. One escape serves element content and both kinds of quoted attribute,
/// in HTML and in SVG (whose `<title>` is an HTML integration point, so markup in it is parsed).
public enum XMLText {
  /// `text` with `&`, `<`, `>`, `"` and `'` escaped, and characters XML 1.0 cannot carry (C0
  /// controls but tab and line feed, lone surrogates cannot occur in a Swift string) written as
  /// U+FFFD, so the page is well-formed for an XML reader too.
  public static func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case "\t", "\n": out.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
          out += "\u{FFFD}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }
}
