import SimKernel
import SimMetrics
import SimModel

/// Reading the keys `ParameterTable` declares: one loop for every section, nested object and
/// device key, so a new key needs no reading code.
extension ScenarioBuilder {
  /// Reads the object `node` at `path`, which is the group `group` of `table` (`""` for the root
  /// object itself): every declared key and nested group under it, into `root`. Keys in `extra`
  /// are allowed and returned for the caller to read by hand; nil when the object is absent or
  /// not an object.
  @discardableResult
  func readParameters<Root>(
    _ table: [ParameterDefinition<Root>], groups: [ParameterGroup], group: String, _ node: JSONNode?, _ path: String,
    extra: [String] = [], into root: inout Root
  ) -> Fields? {
    let children = children(of: group, table: table, groups: groups)
    guard let fields = reader.object(node, path, known: children.map(\.key) + extra) else { return nil }
    readParameters(table, groups: groups, group: group, fields: fields, path, into: &root)
    return fields
  }

  /// `ParameterTable.children(of:table:groups:)`, remembered for this decode (its tables are the
  /// builder's parameter set's, so a root type and a group name one answer).
  func children<Root>(
    of group: String, table: [ParameterDefinition<Root>], groups: [ParameterGroup]
  ) -> [(key: String, child: ParameterTable.Child)] {
    childrenCache.value("\(Root.self)\u{0}\(group)") {
      ParameterTable.children(of: group, table: table, groups: groups)
    }
  }

  /// Reads the declared keys of `group` from an object's members already checked against them
  /// (a device entry, whose hand-read keys are checked with them).
  func readParameters<Root>(
    _ table: [ParameterDefinition<Root>], groups: [ParameterGroup], group: String, fields: Fields, _ path: String,
    into root: inout Root
  ) {
    let children = children(of: group, table: table, groups: groups)
    if let declared = groups.first(where: { $0.path == group }) {
      for key in declared.required where fields[key] == nil {
        reader.problem(ScenarioReader.join(path, key), "missing required key \"\(key)\"")
      }
    }
    for child in children {
      guard let value = fields[child.key] else { continue }
      let childPath = ScenarioReader.join(path, child.key)
      switch child.child {
      case .parameter(let index):
        if let decoded = parameterValue(table[index].kind, value, childPath) { table[index].apply(&root, decoded) }
      case .group(let nested):
        readParameters(table, groups: groups, group: nested, value, childPath, into: &root)
      }
    }
  }

  /// One value, read and checked as its kind says (nil when wrong, with the problem recorded).
  func parameterValue<Root>(
    _ kind: ParameterDefinition<Root>.Kind, _ node: JSONNode, _ path: String
  ) -> ParameterDefinition<Root>.Value? {
    switch kind {
    case .integer(let min, let max):
      return reader.integer(node, path, min: min, max: max).map { .integer($0) }
    case .number(let min, let max, let above, let below):
      guard let value = reader.number(node, path, min: min, max: max, above: above) else { return nil }
      if let below, value >= below {
        reader.problem(path, "\(ScenarioReader.format(value)) must be less than \(ScenarioReader.format(below))")
        return nil
      }
      return .number(value)
    case .ratio(let belowOne):
      guard let value = reader.ratio(node, path) else { return nil }
      if belowOne && value >= 1 {
        reader.problem(path, "1 would retry forever", hint: "use less than 1")
        return nil
      }
      return .number(value)
    case .duration(let positive, let atLeast, let why):
      guard let value = reader.duration(node, path, positive: positive) else { return nil }
      if let atLeast, value < atLeast {
        reader.problem(
          path, "\(DurationText.format(value)) is below the limit of \(DurationText.format(atLeast))", hint: why)
        return nil
      }
      return .duration(value)
    case .bool:
      return reader.bool(node, path).map { .bool($0) }
    case .choice(let words):
      guard let text = reader.string(node, path) else { return nil }
      if words.contains(text) { return .choice(text) }
      let hint =
        suggestion(for: text, among: words).map { "did you mean \"\($0)\"?" } ?? "one of: "
        + words.joined(separator: ", ")
      reader.problem(path, "unknown value \"\(text)\"", hint: hint)
      return nil
    case .distribution:
      return reader.distribution(node, path).map { .distribution($0) }
    }
  }

  /// Warns about keys that are written but do nothing because the key they need is absent or 0
  /// (`needs`). The value as written is what counts: a probability refused as an error leaves
  /// the decoded one at its default 0, and the warning must not call it 0.
  func warnInertParameters<Root>(_ table: [ParameterDefinition<Root>], _ object: JSONNode, _ path: String) {
    for definition in table {
      guard let needs = definition.needs, Self.written(definition.path, in: object) != nil,
        Self.isZeroOrAbsent(Self.written(needs, in: object))
      else { continue }
      reader.warning(
        ScenarioReader.join(path, definition.path), "ignored: \(needs) is 0, so nothing backs off")
    }
  }

  /// The member at a dotted path of an object, if written.
  static func written(_ path: String, in object: JSONNode) -> JSONNode? {
    var node: JSONNode? = object
    for step in path.split(separator: ".") { node = node?.member(String(step)) }
    return node
  }
}

extension ParameterTable {
  /// A member of a group: a declared key (its index in the table) or a nested group.
  enum Child: Equatable {
    case parameter(Int)
    case group(String)
  }

  /// The members of `group` (`""` for the root) in table order, a nested group where its first
  /// key is.
  static func children<Root>(
    of group: String, table: [ParameterDefinition<Root>], groups: [ParameterGroup]
  )
    -> [(key: String, child: Child)]
  {
    let depth = group.isEmpty ? 0 : group.split(separator: ".").count
    var result: [(key: String, child: Child)] = []
    for (index, definition) in table.enumerated() {
      let steps = definition.steps
      guard steps.count > depth, depth == 0 || steps[..<depth].joined(separator: ".") == group else { continue }
      if steps.count == depth + 1 {
        result.append((definition.key, .parameter(index)))
      } else {
        let nested = steps[...depth].joined(separator: ".")
        if groups.contains(where: { $0.path == nested }) && !result.contains(where: { $0.child == .group(nested) }) {
          result.append((steps[depth], .group(nested)))
        }
      }
    }
    return result
  }
}

extension ParameterDefinition {
  /// The schema's description: meaning, unit, source, and what absence means.
  var describedForSchema: String {
    var text = meaning
    if !unit.isEmpty && unit != "ratio" { text += " (\(unit))" }
    if !source.isEmpty { text += " " + source }
    if case .absent(let means) = defaultValue { text += "; absent: \(means)" }
    return text
  }

  /// The default as the schema states it (nil when absence is the default).
  var defaultNode: JSONNode? {
    switch defaultValue {
    case .integer(let value): .number(Double(value))
    case .number(let value): .number(value)
    case .duration(let text): Double(text).map { .number($0) } ?? .string(text)
    case .bool(let flag): .bool(flag)
    case .choice(let word): .string(word)
    case .distribution(let json): try? JSONParser.parse(Array(json.utf8))
    case .absent: nil
    }
  }
}
