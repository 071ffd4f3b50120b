import Foundation
import SimScenario

/// A small JSON Schema (draft 2020-12) validator for the keywords SyncSim's schema uses, so that
/// tests can check the committed schema against the decoder without a third-party package.
///
/// Keywords: `type`, `enum`, `const`, `pattern`, `minLength`, `maxLength`, `minimum`, `maximum`,
/// `exclusiveMinimum`, `exclusiveMaximum`, `items`, `minItems`, `maxItems`, `properties`,
/// `additionalProperties`, `propertyNames`, `required`, `minProperties`, `oneOf`, `anyOf`, `allOf`, `not` and local
/// `$ref`s (`#/$defs/...`). Annotations (`description`, `default`, `$schema`, `$id`, `title`) are
/// ignored. An unknown keyword is a test failure (`unknownKeywords`), so the validator cannot
/// silently accept what it does not check.
public final class JSONSchemaValidator {
  public let root: JSONNode
  public private(set) var unknownKeywords: Set<String> = []
  private var patterns: [String: NSRegularExpression] = [:]

  static let annotations: Set<String> = ["description", "default", "$schema", "$id", "title", "$defs", "examples"]

  public init(schema: JSONNode) { root = schema }

  /// The problems of `instance` against the schema, empty when it is valid.
  public func errors(_ instance: JSONNode) -> [String] {
    var errors: [String] = []
    check(instance, root, "", &errors)
    return errors
  }

  public func isValid(_ instance: JSONNode) -> Bool { errors(instance).isEmpty }

  private func check(_ value: JSONNode, _ schema: JSONNode, _ path: String, _ errors: inout [String]) {
    if case .bool(let allowed) = schema.value {
      if !allowed { errors.append("\(path): not allowed") }
      return
    }
    guard case .object(let keywords) = schema.value else {
      errors.append("\(path): schema is not an object")
      return
    }
    for (keyword, argument) in keywords {
      switch keyword {
      case "$ref": check(value, resolve(argument), path, &errors)
      case "type": checkType(value, argument, path, &errors)
      case "enum":
        if case .array(let options) = argument.value, !options.contains(where: { Self.equal($0, value) }) {
          errors.append("\(path): not one of the enum's values")
        }
      case "const": if !Self.equal(argument, value) { errors.append("\(path): not the constant") }
      case "pattern", "minLength", "maxLength": checkString(value, keyword, argument, path, &errors)
      case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
        checkNumber(value, keyword, argument, path, &errors)
      case "items", "minItems", "maxItems": checkArray(value, keyword, argument, path, &errors)
      case "propertyNames":
        if case .object(let members) = value.value {
          for member in members {
            check(JSONNode(value: .string(member.key), line: 0, column: 0), argument, path + "." + member.key, &errors)
          }
        }
      case "properties", "additionalProperties", "required", "minProperties":
        checkObject(value, keyword, argument, keywords, path, &errors)
      case "oneOf", "anyOf", "allOf":
        guard case .array(let branches) = argument.value else { continue }
        let passing = branches.filter { branch in
          var inner: [String] = []
          check(value, branch, path, &inner)
          return inner.isEmpty
        }.count
        if keyword == "oneOf" && passing != 1 { errors.append("\(path): matches \(passing) of oneOf's branches") }
        if keyword == "anyOf" && passing == 0 { errors.append("\(path): matches none of anyOf's branches") }
        if keyword == "allOf" && passing != branches.count { errors.append("\(path): fails allOf") }
      case "not":
        var inner: [String] = []
        check(value, argument, path, &inner)
        if inner.isEmpty { errors.append("\(path): matches a 'not'") }
      default:
        if !Self.annotations.contains(keyword) { unknownKeywords.insert(keyword) }
      }
    }
  }

  private func resolve(_ reference: JSONNode) -> JSONNode {
    guard case .string(let text) = reference.value, text.hasPrefix("#/") else { return JSONNode.falseSchema }
    var node = root
    for step in text.dropFirst(2).split(separator: "/") {
      guard case .object(let members) = node.value, let next = members.first(where: { $0.key == step })?.value else {
        return JSONNode.falseSchema
      }
      node = next
    }
    return node
  }

  private func checkType(_ value: JSONNode, _ argument: JSONNode, _ path: String, _ errors: inout [String]) {
    let names: [String]
    switch argument.value {
    case .string(let name): names = [name]
    case .array(let list): names = list.compactMap { if case .string(let name) = $0.value { name } else { nil } }
    default: return
    }
    if !names.contains(where: { Self.hasType(value, $0) }) { errors.append("\(path): not of type \(names)") }
  }

  static func hasType(_ value: JSONNode, _ name: String) -> Bool {
    switch (name, value.value) {
    case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array),
      ("object", .object):
      return true
    case ("integer", .number(_, let number)): return number == number.rounded() && number.isFinite
    default: return false
    }
  }

  private func checkString(
    _ value: JSONNode, _ keyword: String, _ argument: JSONNode, _ path: String, _ errors: inout [String]
  ) {
    guard case .string(let text) = value.value else { return }
    switch (keyword, argument.value) {
    case ("pattern", .string(let pattern)):
      let regex = patterns[pattern] ?? (try? NSRegularExpression(pattern: pattern))
      patterns[pattern] = regex
      let range = NSRange(text.startIndex..., in: text)
      if regex?.firstMatch(in: text, range: range) == nil { errors.append("\(path): does not match \(pattern)") }
    case ("minLength", .number(_, let bound)): if Double(text.unicodeScalars.count) < bound { errors.append(path) }
    case ("maxLength", .number(_, let bound)): if Double(text.unicodeScalars.count) > bound { errors.append(path) }
    default: break
    }
  }

  private func checkNumber(
    _ value: JSONNode, _ keyword: String, _ argument: JSONNode, _ path: String, _ errors: inout [String]
  ) {
    guard case .number(_, let number) = value.value, case .number(_, let bound) = argument.value else { return }
    let ok =
      switch keyword {
      case "minimum": number >= bound
      case "maximum": number <= bound
      case "exclusiveMinimum": number > bound
      default: number < bound
      }
    if !ok { errors.append("\(path): \(number) fails \(keyword) \(bound)") }
  }

  private func checkArray(
    _ value: JSONNode, _ keyword: String, _ argument: JSONNode, _ path: String, _ errors: inout [String]
  ) {
    guard case .array(let elements) = value.value else { return }
    switch (keyword, argument.value) {
    case ("items", _):
      for (index, element) in elements.enumerated() { check(element, argument, "\(path)[\(index)]", &errors) }
    case ("minItems", .number(_, let bound)): if Double(elements.count) < bound { errors.append("\(path): too few") }
    case ("maxItems", .number(_, let bound)): if Double(elements.count) > bound { errors.append("\(path): too many") }
    default: break
    }
  }

  private func checkObject(
    _ value: JSONNode, _ keyword: String, _ argument: JSONNode, _ keywords: [(key: String, value: JSONNode)],
    _ path: String, _ errors: inout [String]
  ) {
    guard case .object(let members) = value.value else { return }
    switch keyword {
    case "properties":
      guard case .object(let properties) = argument.value else { return }
      for (key, member) in members {
        if let schema = properties.first(where: { $0.key == key })?.value {
          check(member, schema, path + "." + key, &errors)
        }
      }
    case "additionalProperties":
      let known =
        keywords.first { $0.key == "properties" }.flatMap { entry -> [String]? in
          if case .object(let properties) = entry.value.value { properties.map(\.key) } else { nil }
        } ?? []
      for (key, member) in members where !known.contains(key) { check(member, argument, path + "." + key, &errors) }
    case "required":
      guard case .array(let names) = argument.value else { return }
      for case .string(let name) in names.map(\.value) where !members.contains(where: { $0.key == name }) {
        errors.append("\(path): missing \(name)")
      }
    case "minProperties":
      if case .number(_, let bound) = argument.value, Double(members.count) < bound {
        errors.append("\(path): too few")
      }
    default: break
    }
  }

  static func equal(_ a: JSONNode, _ b: JSONNode) -> Bool {
    switch (a.value, b.value) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(_, let x), .number(_, let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
    case (.object(let x), .object(let y)):
      return x.count == y.count
        && x.allSatisfy { member in y.contains { $0.key == member.key && equal($0.value, member.value) } }
    default: return false
    }
  }
}

extension JSONNode {
  static var falseSchema: JSONNode { JSONNode(value: .bool(false), line: 0, column: 0) }
}
