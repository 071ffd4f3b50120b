/// Text made safe for XML content and attribute values (the report's SVG and HTML, the JUnit file).
public enum XMLText {
  /// `text` with `&`, `<`, `>` and `"` escaped.
  public static func escaped(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default: out.append(character)
      }
    }
    return out
  }
}
