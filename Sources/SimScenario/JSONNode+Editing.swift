/// Setting values at JSON paths (`push.dropProbability`, `devices[1].power.battery`) and writing
/// JSON back out, for sweeps.
extension JSONNode {
  /// One step of a JSON path.
  public enum PathStep: Equatable, Sendable {
    case key(String)
    case index(Int)
  }

  /// Parses `a.b[2].c`; nil when malformed.
  public static func parsePath(_ text: String) -> [PathStep]? {
    var steps: [PathStep] = []
    var current = ""
    var characters = Array(text)[...]
    func flush() -> Bool {
      guard !current.isEmpty else { return false }
      steps.append(.key(current))
      current = ""
      return true
    }
    while let character = characters.popFirst() {
      switch character {
      case ".":
        if current.isEmpty && steps.last.map({ if case .index = $0 { return false } else { return true } }) ?? true {
          return nil
        }
        if !current.isEmpty { _ = flush() }
      case "[":
        if !current.isEmpty { _ = flush() }
        var digits = ""
        while let next = characters.popFirst(), next != "]" { digits.append(next) }
        guard let index = Int(digits), index >= 0 else { return nil }
        steps.append(.index(index))
      default:
        current.append(character)
      }
    }
    // A path may not end with a dot ("push."): the key after it is missing.
    if text.hasSuffix(".") { return nil }
    if !current.isEmpty { _ = flush() }
    return steps.isEmpty ? nil : steps
  }

  /// A copy of this object without its member `key` (itself when it is not an object).
  public func removingMember(_ key: String) -> JSONNode {
    guard case .object(let members) = value else { return self }
    return JSONNode(value: .object(members.filter { $0.key != key }), line: line, column: column)
  }

  /// Returns a copy with `value` at `path`, creating missing object members; nil (with why) when
  /// the path crosses a value that is not an object or array, or an index is out of range.
  public func setting(_ value: JSONNode, at path: ArraySlice<PathStep>) -> Result<JSONNode, PathError> {
    guard let step = path.first else { return .success(value) }
    let rest = path.dropFirst()
    switch (step, self.value) {
    case (.key(let key), .object(var members)):
      let existing = members.first { $0.key == key }?.value ?? JSONNode(value: .object([]), line: line, column: column)
      switch existing.setting(value, at: rest) {
      case .success(let updated):
        if let index = members.firstIndex(where: { $0.key == key }) {
          members[index].value = updated
        } else {
          members.append((key, updated))
        }
        return .success(JSONNode(value: .object(members), line: line, column: column))
      case .failure(let error): return .failure(error)
      }
    case (.index(let index), .array(var elements)):
      guard index < elements.count else {
        return .failure(PathError(message: "index \(index) is beyond the \(elements.count) elements there"))
      }
      switch elements[index].setting(value, at: rest) {
      case .success(let updated):
        elements[index] = updated
        return .success(JSONNode(value: .array(elements), line: line, column: column))
      case .failure(let error): return .failure(error)
      }
    case (.key(let key), _):
      return .failure(PathError(message: "cannot set \"\(key)\" inside \(self.value.typeName)"))
    case (.index(let index), _):
      return .failure(PathError(message: "cannot index [\(index)] into \(self.value.typeName)"))
    }
  }

  /// Why a path could not be set.
  public struct PathError: Error, Sendable {
    public var message: String
  }

  /// The JSON text, pretty-printed with two-space indentation, members in their order.
  public func serialized(indent: Int = 0) -> String {
    var out = ""
    write(into: &out, indent: indent)
    return out
  }

  /// Appends `serialized(indent:)`'s text to `out`: one buffer for the whole document (a
  /// string and a joined array per node took 0.15 s for a scenario of 20,000 timeline entries).
  func write(into out: inout String, indent: Int) {
    switch value {
    case .null: out += "null"
    case .bool(let flag): out += flag ? "true" : "false"
    case .number(let text, _): out += text
    case .string(let text): Self.appendQuoted(text, to: &out)
    case .array(let elements):
      if elements.isEmpty {
        out += "[]"
        return
      }
      if elements.allSatisfy({
        if case .array = $0.value { return false }; if case .object = $0.value { return false }; return true
      }) {
        out += "["
        for (index, element) in elements.enumerated() {
          if index > 0 { out += ", " }
          element.write(into: &out, indent: 0)
        }
        out += "]"
        return
      }
      out += "[\n"
      for (index, element) in elements.enumerated() {
        if index > 0 { out += ",\n" }
        Self.pad(&out, indent + 1)
        element.write(into: &out, indent: indent + 1)
      }
      out += "\n"
      Self.pad(&out, indent)
      out += "]"
    case .object(let members):
      if members.isEmpty {
        out += "{}"
        return
      }
      out += "{\n"
      for (index, member) in members.enumerated() {
        if index > 0 { out += ",\n" }
        Self.pad(&out, indent + 1)
        Self.appendQuoted(member.key, to: &out)
        out += ": "
        member.value.write(into: &out, indent: indent + 1)
      }
      out += "\n"
      Self.pad(&out, indent)
      out += "}"
    }
  }

  private static func pad(_ out: inout String, _ indent: Int) {
    for _ in 0..<indent { out += "  " }
  }

  /// The JSON text on one line (`{"a": 1, "b": [2, 3]}`), members in their order: what a CSV
  /// field or a message holds, where a pretty-printed value would span lines.
  public func compactSerialized() -> String {
    switch value {
    case .array(let elements): return "[" + elements.map { $0.compactSerialized() }.joined(separator: ", ") + "]"
    case .object(let members):
      return "{" + members.map { Self.quote($0.key) + ": " + $0.value.compactSerialized() }.joined(separator: ", ")
        + "}"
    default: return serialized()
    }
  }

  /// `text` as a JSON string literal, quotes included.
  public static func quote(_ text: String) -> String {
    var out = ""
    appendQuoted(text, to: &out)
    return out
  }

  /// Appends `quote(text)` to `out`.
  static func appendQuoted(_ text: String, to out: inout String) {
    out += "\""
    // Most text needs no escape: appended whole.
    if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
      out += text
      out += "\""
      return
    }
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
  }
}
