import SimKernel

/// The resolved form of a scenario, for provenance: the document with every default the schema
/// states filled in, and the hash of its canonical form (`scenarioHash`).
///
/// Two documents that run the same world have the same canonical form whatever their whitespace,
/// key order, `description`, `$schema` or `sweep` section (a run ignores its sweep), and whatever
/// their seed: the seed is recorded beside the scenario, so every replication of one sweep point
/// and a `run` of that point's `scenario.json` share one hash.
public enum ScenarioResolver {
  /// The scenario schema, built once.
  static var schema: JSONNode { ScenarioSchema.node }

  /// Members the canonical form leaves out: they do not change what a run does.
  static let ignoredForHash: Set<String> = ["$schema", "description", "sweep", "seed"]

  /// The scenario's document with every schema default filled in, and `duration` when a run
  /// overrides it. The two defaults that depend on other members are written out as decoded:
  /// `accounts` (one more than the highest account a device uses) and `environment`'s
  /// `polling.interval`.
  public static func resolve(_ scenario: Scenario, duration: SimDuration? = nil, schema: JSONNode? = nil) -> JSONNode {
    var document = scenario.document
    if document.member("accounts") == nil {
      let count = scenario.spec.accountCount
      let node = JSONNode(value: .number(String(count), Double(count)), line: 0, column: 0)
      document = (try? document.setting(node, at: [.key("accounts")]).get()) ?? document
    }
    if let duration {
      document =
        (try? document.setting(.string(DurationText.format(duration)), at: [.key("duration")]).get()) ?? document
    }
    if case .string(let environment)? = document.member("environment")?.value,
      document.member("polling")?.member("interval") == nil
    {
      let interval = environment == "production" ? "24h" : "30m"
      let path: [JSONNode.PathStep] = [.key("polling"), .key("interval")]
      document = (try? document.setting(.string(interval), at: path[...]).get()) ?? document
    }
    return fill(document, schema: schema ?? Self.schema)
  }

  /// The canonical text of a resolved document: keys sorted, no whitespace, numbers by value,
  /// and the members in `ignoredForHash` left out at the top level.
  public static func canonicalText(_ resolved: JSONNode) -> String {
    var out = ""
    canonical(resolved, top: true, into: &out)
    return out
  }

  /// Where a recorded resolved scenario and today's differ only in members the scenario file does
  /// not write: the defaults that changed since (`devices[1].pushRuntime`), in document order.
  /// Nil when a member the file writes differs (the file changed); empty when nothing differs.
  public static func changedDefaults(recorded: JSONNode, current: JSONNode, written: JSONNode) -> [String]? {
    var paths: [(path: String, steps: [JSONNode.PathStep])] = []
    differences(recorded, current, path: "", steps: [], top: true, into: &paths)
    for difference in paths where writes(written, difference.steps) { return nil }
    return paths.map(\.path)
  }

  static func differences(
    _ a: JSONNode, _ b: JSONNode, path: String, steps: [JSONNode.PathStep], top: Bool,
    into paths: inout [(path: String, steps: [JSONNode.PathStep])]
  ) {
    switch (a.value, b.value) {
    case (.object(let left), .object(let right)):
      var keys = left.map(\.key)
      for member in right where !keys.contains(member.key) { keys.append(member.key) }
      for key in keys where !(top && ignoredForHash.contains(key)) {
        let child = (path.isEmpty ? key : path + "." + key, steps + [.key(key)])
        guard let x = left.first(where: { $0.key == key })?.value, let y = right.first(where: { $0.key == key })?.value
        else {
          paths.append(child)
          continue
        }
        differences(x, y, path: child.0, steps: child.1, top: false, into: &paths)
      }
    case (.array(let left), .array(let right)) where left.count == right.count:
      for index in left.indices {
        differences(
          left[index], right[index], path: path + "[\(index)]", steps: steps + [.index(index)], top: false,
          into: &paths)
      }
    default:
      if canonicalText(a) != canonicalText(b) { paths.append((path, steps)) }
    }
  }

  /// Whether `document` has a member at `steps` (a path it writes).
  static func writes(_ document: JSONNode, _ steps: [JSONNode.PathStep]) -> Bool {
    var node = document
    for step in steps {
      switch (step, node.value) {
      case (.key(let key), .object(let members)):
        guard let next = members.first(where: { $0.key == key })?.value else { return false }
        node = next
      case (.index(let index), .array(let elements)):
        guard elements.indices.contains(index) else { return false }
        node = elements[index]
      default: return false
      }
    }
    return true
  }

  /// The version of what `hash` covers. Version 2 left defaults out, so a new key whose default
  /// keeps behaviour changes no scenario's hash; version 3 reads every duration by value, also
  /// under `anyOf` (expectations' bounds, clock-or-duration timeline times). A change to what is
  /// hashed bumps it.
  public static let hashFormat = "syncsim-scenario-hash-3"

  /// `scenarioHash`: 16 hex digits of the hash of `hashFormat` and the canonical text of the
  /// resolved scenario with every member at its schema default left out (durations compared
  /// by value: `"900s"` and `"15m"` are one).
  public static func hash(_ resolved: JSONNode, schema: JSONNode? = nil) -> String {
    let text = hashFormat + "\n" + canonicalText(withoutDefaults(resolved, schema: schema ?? Self.schema))
    return TrajectoryFingerprint(bytes: text.utf8).hex
  }

  /// The document with every member that equals its schema default removed, and durations
  /// written as seconds (so that equal durations compare equal).
  static func withoutDefaults(_ node: JSONNode, schema: JSONNode) -> JSONNode {
    let schema = dereferenced(schema)
    if let seconds = durationSeconds(node, schema: schema) {
      return JSONNode(value: .number(ScenarioReader.format(seconds), seconds), line: 0, column: 0)
    }
    switch node.value {
    case .array(let elements):
      guard let items = schema.member("items") else { return node }
      return JSONNode(value: .array(elements.map { withoutDefaults($0, schema: items) }), line: 0, column: 0)
    case .object(let members):
      guard let objectSchema = branch(for: members, in: schema),
        case .object(let properties)? = objectSchema.member("properties")?.value
      else { return node }
      var kept: [(key: String, value: JSONNode)] = []
      for member in members {
        guard let propertySchema = properties.first(where: { $0.key == member.key })?.value else {
          kept.append(member)
          continue
        }
        let stripped = withoutDefaults(member.value, schema: propertySchema)
        if let value = defaultValue(propertySchema),
          sameCanonicalText(withoutDefaults(value, schema: propertySchema), stripped)
        {
          continue
        }
        kept.append((member.key, stripped))
      }
      return JSONNode(value: .object(kept), line: 0, column: 0)
    default:
      return node
    }
  }

  /// Whether `a` and `b` have the same canonical text, without writing it out for two scalars:
  /// strings, booleans and null by value, finite numbers by value (the canonical text writes a
  /// whole number below 9e15 as an integer and any other by its shortest form, so two texts are
  /// the same exactly when the values are), scalars of two kinds never.
  static func sameCanonicalText(_ a: JSONNode, _ b: JSONNode) -> Bool {
    switch (a.value, b.value) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.number(_, let x), .number(_, let y)) where x.isFinite && y.isFinite: return x == y
    case (.array, _), (.object, _), (_, .array), (_, .object), (.number, .number):
      return canonicalText(a) == canonicalText(b)
    default: return false
    }
  }

  /// `$defs/duration`, to know a duration's schema once dereferenced: its canonical text, and
  /// two things every schema with that text has (as many `oneOf` branches, and a first branch
  /// with the same `type` and text), which rule out the other schemas without writing their text
  /// out.
  static let durationSchema = schema.member("$defs")?.member("duration")
  static let durationSchemaText = durationSchema.map { canonicalText($0) } ?? ""
  static let durationBranches: [JSONNode] = {
    guard case .array(let branches)? = durationSchema?.member("oneOf")?.value else { return [] }
    return branches
  }()
  static let durationFirstBranchText = durationBranches.first.map { canonicalText($0) } ?? ""
  static let durationFirstBranchType = durationBranches.first.flatMap(typeName)

  /// A schema's `type`, when it is one name.
  static func typeName(_ schema: JSONNode) -> String? {
    guard case .string(let name)? = schema.member("type")?.value else { return nil }
    return name
  }

  /// Whether `schema` is `$defs/duration` (its canonical text is the same).
  ///
  /// A duration's schema is mostly `$defs/duration` itself as `dereferenced` returns it, whose
  /// members share their storage with `durationSchema`'s: the same storage holds the same members.
  static func isDurationSchema(_ schema: JSONNode) -> Bool {
    if case .object(let members) = schema.value, case .object(let durationMembers)? = durationSchema?.value,
      !members.isEmpty, members.withUnsafeBufferPointer({ $0.baseAddress })
        == durationMembers.withUnsafeBufferPointer({ $0.baseAddress })
    {
      return true
    }
    guard case .array(let branches)? = schema.member("oneOf")?.value, !branches.isEmpty,
      branches.count == durationBranches.count, typeName(branches[0]) == durationFirstBranchType,
      canonicalText(branches[0]) == durationFirstBranchText
    else { return false }
    return canonicalText(schema) == durationSchemaText
  }

  /// The seconds of a value whose schema is a duration (or a distribution's plain-duration
  /// form); nil for anything else.
  static func durationSeconds(_ node: JSONNode, schema: JSONNode) -> Double? {
    var isDuration = isDurationSchema(schema)
    if !isDuration, case .array(let branches)? = (schema.member("oneOf") ?? schema.member("anyOf"))?.value {
      isDuration = branches.contains {
        if case .string("#/$defs/duration")? = $0.member("$ref")?.value { return true }
        return false
      }
    }
    guard isDuration else { return nil }
    switch node.value {
    case .number(_, let value): return value
    case .string(let text): return DurationText.parse(text)?.seconds
    default: return nil
    }
  }

  /// `resolved.json`: the version of syncsim, the seed (a run's) or seeds (a sweep point's), the
  /// hash and the resolved scenario. `hash` is `hash(resolved)`, when the caller has it already.
  public static func file(_ resolved: JSONNode, seeds: [UInt64], version: String, hash: String? = nil) -> String {
    let number = { (seed: UInt64) in JSONNode(value: .number(String(seed), Double(seed)), line: 0, column: 0) }
    return JSONNode.object([
      ("syncsimVersion", .string(version)),
      seeds.count == 1 ? ("seed", number(seeds[0])) : ("seeds", .array(seeds.map(number))),
      ("scenarioHash", .string(hash ?? Self.hash(resolved))),
      ("scenario", resolved),
    ]).serialized() + "\n"
  }

  /// Members whose defaults are written only beside a written sibling: a device's sync client and
  /// the engine's settings come out for a device that names its client, so that a Core Data
  /// device's resolved entry is what it was before CKSyncEngine came (its defaults are Core Data's
  /// either way).
  static let writtenOnlyWith = ["client": "client", "syncEngine": "client"]

  static func fill(_ node: JSONNode, schema: JSONNode) -> JSONNode {
    let schema = dereferenced(schema)
    switch node.value {
    case .array(let elements):
      guard let items = schema.member("items") else { return node }
      return JSONNode(value: .array(elements.map { fill($0, schema: items) }), line: node.line, column: node.column)
    case .object(let members):
      guard let objectSchema = branch(for: members, in: schema),
        case .object(let properties)? = objectSchema.member("properties")?.value
      else { return node }
      var filled: [(key: String, value: JSONNode)] = []
      for (key, propertySchema) in properties {
        if let present = members.first(where: { $0.key == key }) {
          filled.append((key, fill(present.value, schema: propertySchema)))
        } else if let sibling = writtenOnlyWith[key], !members.contains(where: { $0.key == sibling }) {
          continue
        } else if let value = defaultValue(propertySchema) {
          filled.append((key, value))
        }
      }
      for member in members where !filled.contains(where: { $0.key == member.key }) { filled.append(member) }
      return JSONNode(value: .object(filled), line: node.line, column: node.column)
    default:
      return node
    }
  }

  /// The default of an absent member: the schema's `default`, or for an object with no required
  /// members, an object of its members' defaults (so an absent `cloud` comes out in full).
  static func defaultValue(_ schema: JSONNode) -> JSONNode? {
    // A property's own `default` sits beside its `$ref`: read it before following the reference.
    if let value = schema.member("default") { return fill(value, schema: schema) }
    let schema = dereferenced(schema)
    if let value = schema.member("default") { return fill(value, schema: schema) }
    guard case .string("object")? = schema.member("type")?.value, schema.member("required") == nil,
      case .object(let properties)? = schema.member("properties")?.value, !properties.isEmpty
    else { return nil }
    let filled = fill(.object([]), schema: schema)
    if case .object(let members) = filled.value, members.isEmpty { return nil }
    return filled
  }

  /// The object schema among `oneOf`/`anyOf` branches whose properties cover every member given
  /// and whose required members are present; the schema itself when it has no branches.
  static func branch(for members: [(key: String, value: JSONNode)], in schema: JSONNode) -> JSONNode? {
    guard case .array(let branches)? = (schema.member("oneOf") ?? schema.member("anyOf"))?.value else {
      return schema
    }
    let keys = Set(members.map(\.key))
    for candidate in branches.map(dereferenced) {
      guard case .object(let properties)? = candidate.member("properties")?.value else { continue }
      let known = Set(properties.map(\.key))
      var required: Set<String> = []
      if case .array(let names)? = candidate.member("required")?.value {
        for name in names { if case .string(let text) = name.value { required.insert(text) } }
      }
      if keys.isSubset(of: known) && required.isSubset(of: keys) { return candidate }
    }
    return nil
  }

  /// Follows a local `$ref` (`#/$defs/NAME`).
  static func dereferenced(_ schema: JSONNode) -> JSONNode {
    guard case .string(let reference)? = schema.member("$ref")?.value, reference.hasPrefix("#/$defs/"),
      let target = Self.schema.member("$defs")?.member(String(reference.dropFirst("#/$defs/".count)))
    else { return schema }
    return target
  }

  static func canonical(_ node: JSONNode, top: Bool, into out: inout String) {
    switch node.value {
    case .null: out += "null"
    case .bool(let flag): out += flag ? "true" : "false"
    case .number(let text, let value):
      if value.isFinite, value == value.rounded(), abs(value) < 9e15 {
        out += String(Int64(value))
      } else {
        out += value.isFinite ? "\(value)" : text
      }
    case .string(let text): out += JSONNode.quote(text)
    case .array(let elements):
      out += "["
      for (index, element) in elements.enumerated() {
        if index > 0 { out += "," }
        canonical(element, top: false, into: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      let kept = members.filter { !top || !ignoredForHash.contains($0.key) }
      // Sorted by the keys' scalars: a fixed order, unlike a dictionary's.
      let sorted = kept.sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }
      for (index, member) in sorted.enumerated() {
        if index > 0 { out += "," }
        out += JSONNode.quote(member.key) + ":"
        canonical(member.value, top: false, into: &out)
      }
      out += "}"
    }
  }
}

extension JSONNode {
  /// The value of member `key` of an object; nil for a missing member or a non-object.
  public func member(_ key: String) -> JSONNode? {
    guard case .object(let members) = value else { return nil }
    return members.first { $0.key == key }?.value
  }
}
