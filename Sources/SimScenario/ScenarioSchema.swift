import SimMetrics
import SimModel

/// The JSON Schema of scenario files (draft 2020-12), printed by `syncsim schema` and committed as
/// `Scenarios/schema.json`: the hand-written template (`ScenarioSchemaTemplate`: structured
/// values) with the keys `ParameterTable` declares, the policies of the registry, the metrics of
/// the catalog and the duration grammar filled in, so that a new key or policy appears in the
/// schema without editing it.
public enum ScenarioSchema {
  /// The schema with SyncSim's own policies.
  public static let text = node.serialized()

  /// The schema with SyncSim's own policies, as a tree (what `ScenarioResolver` fills defaults
  /// from: reading it back from `text` cost a run a tenth of its set-up).
  static let node = documentNode(policies: .standard)

  /// The schema with the policies of `registry`.
  public static func document(policies registry: PolicyRegistry, parameters: ParameterSet = .standard) -> String {
    documentNode(policies: registry, parameters: parameters).serialized()
  }

  /// The schema with the policies of `registry`, as a tree.
  public static func documentNode(policies registry: PolicyRegistry, parameters: ParameterSet = .standard) -> JSONNode {
    guard let template = try? JSONParser.parse(Array(ScenarioSchemaTemplate.text.utf8)) else {
      preconditionFailure("the schema template (ScenarioSchemaTemplate.swift) is not JSON")
    }
    let metrics = RunSummary.catalog(policyNames: registry.names)
    func part(_ name: String) -> JSONNode {
      for (prefix, make) in [
        ("object:", { (object: ScenarioObject) in object.schemaNode(parameters: parameters, part: part) }),
        ("properties:", { $0.propertiesNode(parameters: parameters, part: part) }),
        ("required:", { .array($0.required.map { .string($0) }) }),
      ] where name.hasPrefix(prefix) {
        guard let object = ScenarioObject.named(String(name.dropFirst(prefix.count))) else {
          preconditionFailure("the schema names an undeclared object \(name)")
        }
        return make(object)
      }
      switch name {
      case "expect": return expectNode(metrics)
      case "tolerances": return tolerancesNode(metrics)
      case "conditions": return conditionsNode()
      case "actions": return actionsNode(parameters: parameters)
      case "storeIndex": return storeIndexNode()
      case "workloads": return ArrivalSection.workloads.schemaNode(parameters: parameters, part: actionPart)
      case "usage": return ArrivalSection.usage.schemaNode(parameters: parameters, part: actionPart)
      case "distribution": return DistributionKindTable.schemaNode()
      case "duration": return durationNode()
      default: preconditionFailure("the schema template names an unknown part \(name)")
      }
    }
    let expanded = expand(template, parameters: parameters, part: part)
    let policies: [JSONNode.PathStep] = [.key("properties"), .key("scheduler"), .key("properties"), .key("policies")]
    switch expanded.setting(policiesNode(registry), at: policies[...]) {
    case .success(let schema):
      if let missing = actionsWithoutSchema(schema) {
        preconditionFailure("the schema template has no alternative for the timeline action \(missing)")
      }
      return schema
    case .failure(let error): preconditionFailure("schema template: \(error.message)")
    }
  }

  /// The template with each placeholder replaced: `{"$parameters": "cloud"}` by the declared
  /// group, `{"$parameters": "devices:power"}` by a device key, `{"$generated": name}` by `part`.
  static func expand(_ node: JSONNode, parameters: ParameterSet, part: (String) -> JSONNode) -> JSONNode {
    switch node.value {
    case .object(let members):
      if members.count == 1, case .string(let name) = members[0].value.value {
        if members[0].key == "$generated" { return part(name) }
        if members[0].key == "$parameters" { return parametersNode(name, parameters) }
      }
      return JSONNode(
        value: .object(members.map { ($0.key, expand($0.value, parameters: parameters, part: part)) }),
        line: node.line, column: node.column)
    case .array(let elements):
      return JSONNode(
        value: .array(elements.map { expand($0, parameters: parameters, part: part) }), line: node.line,
        column: node.column)
    default:
      return node
    }
  }

  /// A timeline entry's `action` (`TimelineActionTable`): a name, or an object with exactly one
  /// valued action, each with its value's declared schema.
  static func actionsNode(parameters: ParameterSet) -> JSONNode {
    let names = JSONNode.object([
      (
        "description",
        .string("an action written as a name: " + ScenarioBuilder.simpleActionList.map(\.name).joined(separator: ", "))
      ),
      ("enum", .array(ScenarioBuilder.simpleActionList.map { .string($0.name) })),
    ])
    let valued: [JSONNode] = TimelineActionTable.all.compactMap { row in
      guard let schema = row.valueSchema else { return nil }
      let value: JSONNode
      switch schema {
      case .node(let make): value = make()
      case .json(let text):
        guard let parsed = try? JSONParser.parse(Array(text.utf8)) else {
          preconditionFailure("the value schema of the timeline action \(row.name) is not JSON")
        }
        value = expand(parsed, parameters: parameters, part: actionPart)
      }
      return .object([
        ("type", .string("object")), ("additionalProperties", .bool(false)),
        ("properties", .object([(row.name, value)])), ("required", .array([.string(row.name)])),
      ])
    }
    return .object([
      ("description", .string("a name (one of the first alternative's) or an object with exactly one valued action")),
      ("oneOf", .array([names] + valued)),
    ])
  }

  /// `"store": i`, the index of one of a device's stores.
  static func storeIndexNode() -> JSONNode {
    .object([
      ("type", .string("integer")),
      ("description", .string("index into each device's stores (from 0); default the first syncing store")),
      ("minimum", .number(0)), ("maximum", .number(Double(ScenarioDecoder.Limits.highestStoreIndex))),
    ])
  }

  /// The parts an action's value schema names: the edit kinds (`EditKind`) and the conditions.
  static func actionPart(_ name: String) -> JSONNode {
    let kinds = JSONNode.array(EditKind.allCases.map { .string($0.rawValue) })
    switch name {
    case "editKinds": return .object([("enum", kinds)])
    case "editKind": return .object([("description", .string("the edit's kind")), ("enum", kinds)])
    case "conditions": return conditionsNode()
    case "storeIndex": return storeIndexNode()
    default: preconditionFailure("a timeline action's value schema names an unknown part \(name)")
    }
  }

  /// The names of the valued actions (`{"name": value}`) the schema's `action` has an
  /// alternative for, in its order.
  static func valuedActionNames(_ schema: JSONNode) -> [String] {
    let path = ["properties", "timeline", "items", "properties", "action", "oneOf"]
    var node: JSONNode? = schema
    for key in path { node = node?.member(key) }
    guard case .array(let alternatives)? = node?.value else { return [] }
    return alternatives.compactMap { alternative in
      guard case .object(let members)? = alternative.member("properties")?.value, members.count == 1 else { return nil }
      return members[0].key
    }
  }

  /// A valued action the decoder reads (`ScenarioBuilder.valuedActions`) that the schema has no
  /// alternative for, or nil.
  static func actionsWithoutSchema(_ schema: JSONNode) -> String? {
    let described = Set(valuedActionNames(schema))
    return ScenarioBuilder.valuedActions.first { !described.contains($0) }
  }

  /// The timeline's `set` action: exactly one declared condition (`ConditionTable`) and its value.
  static func conditionsNode() -> JSONNode {
    let properties: [(String, JSONNode)] = ConditionTable.all.map { condition in
      var members: [(String, JSONNode)] = [
        ("description", .string("\(condition.meaning) \(condition.source)"))
      ]
      switch condition.kind {
      case .bool: members.append(("type", .string("boolean")))
      case .percent: members += [("type", .string("number")), ("minimum", .number(0)), ("maximum", .number(100))]
      case .level(let names): members.append(("enum", .array(names.map { .string($0) })))
      }
      return (condition.name, .object(members))
    }
    return .object([
      ("description", .string("set one device condition (docs/parameters.md, Device conditions)")),
      ("type", .string("object")), ("additionalProperties", .bool(false)), ("minProperties", .number(1)),
      ("maxProperties", .number(1)), ("properties", .object(properties)),
    ])
  }

  /// The schema of a declared section (`cloud`) or device key (`devices:power`).
  static func parametersNode(_ name: String, _ parameters: ParameterSet) -> JSONNode {
    if name.hasPrefix("devices:") {
      let key = String(name.dropFirst("devices:".count))
      return memberNode(key, table: parameters.device, groups: parameters.deviceGroups)
    }
    return memberNode(name, table: parameters.world, groups: parameters.worldGroups)
  }

  /// The node of the key or group at `path`.
  static func memberNode<Root>(
    _ path: String, table: [ParameterDefinition<Root>], groups: [ParameterGroup]
  )
    -> JSONNode
  {
    if let definition = table.first(where: { $0.path == path }) { return parameterNode(definition) }
    guard let group = groups.first(where: { $0.path == path }) else {
      preconditionFailure("schema template names \(path), which ParameterTable does not declare")
    }
    let children = ParameterTable.children(of: path, table: table, groups: groups)
    var members: [(String, JSONNode)] = [
      ("type", .string("object")), ("additionalProperties", .bool(false)), ("description", .string(group.meaning)),
      (
        "properties",
        .object(
          children.map { child in
            switch child.child {
            case .parameter(let index): (child.key, parameterNode(table[index]))
            case .group(let nested): (child.key, memberNode(nested, table: table, groups: groups))
            }
          })
      ),
    ]
    if !group.required.isEmpty { members.append(("required", .array(group.required.map { .string($0) }))) }
    return .object(members)
  }

  /// One declared key: its kind's constraints, its meaning, unit and source, and its default.
  static func parameterNode<Root>(_ definition: ParameterDefinition<Root>) -> JSONNode {
    var members: [(String, JSONNode)] = [("description", .string(definition.describedForSchema))]
    switch definition.kind {
    case .integer(let min, let max):
      members += [("type", .string("integer")), ("minimum", .number(Double(min))), ("maximum", .number(Double(max)))]
    case .number(let min, let max, let above, let below):
      members.append(("type", .string("number")))
      if let min { members.append(("minimum", .number(min))) }
      if let above { members.append(("exclusiveMinimum", .number(above))) }
      if let max { members.append(("maximum", .number(max))) }
      if let below { members.append(("exclusiveMaximum", .number(below))) }
    case .ratio(let belowOne):
      members += [
        ("type", .string("number")), ("minimum", .number(0)), (belowOne ? "exclusiveMaximum" : "maximum", .number(1)),
      ]
    case .duration: members.append(("$ref", .string("#/$defs/duration")))
    case .bool: members.append(("type", .string("boolean")))
    case .choice(let words): members.append(("enum", .array(words.map { .string($0) })))
    case .distribution: members.append(("$ref", .string("#/$defs/distribution")))
    }
    if let value = definition.defaultNode { members.append(("default", value)) }
    return .object(members)
  }

  /// `expect`: each entry names a metric (completed from the catalog) and bounds it.
  static func expectNode(_ metrics: [RunSummary.MetricInfo]) -> JSONNode {
    let bound = { (meaning: String) -> JSONNode in
      .object([
        ("description", .string(meaning + ": a number, or a duration for a metric in seconds")),
        ("anyOf", .array([.object([("type", .string("number"))]), .object([("$ref", .string("#/$defs/duration"))])])),
      ])
    }
    let item = JSONNode.object([
      ("type", .string("object")), ("additionalProperties", .bool(false)),
      (
        "properties",
        .object([
          (
            "metric",
            .object([
              ("type", .string("string")),
              ("description", .string("a metric of summary.csv (the README's metric list)")),
              ("enum", .array(metrics.map { .string($0.name) })),
            ])
          ),
          ("max", bound("the metric's value must be at most this")),
          ("min", bound("the metric's value must be at least this")),
          ("equals", bound("the metric's value must equal this")),
        ])
      ),
      ("required", .array([.string("metric")])),
      ("minProperties", .number(2)),
    ])
    return .object([
      ("type", .string("array")),
      ("description", .string("expectations checked after the run: a failed one makes `run` exit 1")),
      ("items", item),
    ])
  }

  /// `tolerances`: metric → relative tolerance for `syncsim check`.
  static func tolerancesNode(_ metrics: [RunSummary.MetricInfo]) -> JSONNode {
    .object([
      ("type", .string("object")),
      ("description", .string("metric name → relative tolerance used by syncsim check (0.1 = 10 %)")),
      ("propertyNames", .object([("enum", .array(metrics.map { .string($0.name) }))])),
      ("additionalProperties", .object([("type", .string("number")), ("minimum", .number(0))])),
    ])
  }

  /// A duration: seconds as a number, or text in `DurationText`'s grammar (the decoder's own).
  static func durationNode() -> JSONNode {
    .object([
      (
        "description",
        .string(
          "zero or more seconds as a number, or text with a unit: ns, us, µs, ms, s, m, min, h, d, w (\"250ms\", "
            + "\"1.5s\", \"30m\", \"24h\", \"7d\"), several summed (\"1h30m\", \"2d 6h\"), or seconds as text (\"90\")")
      ),
      (
        "oneOf",
        .array([
          .object([("type", .string("number")), ("minimum", .number(0)), ("exclusiveMaximum", .number(9e9))]),
          .object([("type", .string("string")), ("pattern", .string(DurationText.schemaPattern))]),
        ])
      ),
    ])
  }

  /// The schema of `scheduler.policies`: each policy `true`, `false` or an object of its options.
  static func policiesNode(_ registry: PolicyRegistry) -> JSONNode {
    .object([
      ("type", .string("object")),
      ("additionalProperties", .bool(false)),
      ("properties", .object(registry.definitions.map { ($0.name, policyNode($0)) })),
      ("description", .string("true or an object turns a policy on, false turns it off; evaluated in this order")),
    ])
  }

  static func policyNode(_ definition: PolicyDefinition) -> JSONNode {
    let options = JSONNode.object(definition.options.map { ($0.key, optionNode($0)) })
    let state = definition.isOnByDefault ? "default on" : "default off"
    return .object([
      ("description", .string("\(definition.summary). \(definition.source); \(state)")),
      (
        "oneOf",
        .array([
          .object([("type", .string("boolean"))]),
          .object([("type", .string("object")), ("additionalProperties", .bool(false)), ("properties", options)]),
        ])
      ),
    ])
  }

  static func optionNode(_ option: PolicyOption) -> JSONNode {
    let description = JSONNode.string("\(option.meaning). \(option.source); default \(option.defaultText)")
    switch option.kind {
    case .integer(let min, let max):
      return .object([
        ("type", .string("integer")), ("description", description), ("minimum", .number(Double(min))),
        ("maximum", .number(Double(max))), ("default", .number(Double(option.defaultText) ?? 0)),
      ])
    case .number(let min, let max):
      return .object([
        ("type", .string("number")), ("description", description), ("minimum", .number(min)),
        ("maximum", .number(max)), ("default", .number(Double(option.defaultText) ?? 0)),
      ])
    case .duration:
      return .object([
        ("$ref", .string("#/$defs/duration")), ("description", description), ("default", .string(option.defaultText)),
      ])
    case .bool:
      return .object([
        ("type", .string("boolean")), ("description", description), ("default", .bool(option.defaultText == "true")),
      ])
    case .rateLimitWindows:
      let window = JSONNode.object([
        ("type", .string("object")), ("additionalProperties", .bool(false)),
        (
          "properties",
          .object([
            (
              "maxRuns",
              .object([
                ("type", .string("integer")), ("description", .string("runs allowed within the window")),
                ("minimum", .number(1)), ("maximum", .number(10_000_000)),
              ])
            ),
            (
              "window",
              .object([
                ("$ref", .string("#/$defs/duration")), ("description", .string("the window's length, at most 30 days")),
              ])
            ),
          ])
        ),
        ("required", .array([.string("maxRuns"), .string("window")])),
      ])
      return .object([
        ("type", .string("array")), ("description", description), ("maxItems", .number(32)), ("items", window),
      ])
    }
  }

  /// The README's table of policies, in evaluation order: key, what it takes, default, source.
  /// The timeline's actions as a Markdown table (`TimelineActionTable`).
  public static var actionTable: String { TimelineActionTable.document }

  public static func policyTable(_ registry: PolicyRegistry = .standard) -> String {
    var lines = ["| policy | refuses | options (default; source) | default |", "|---|---|---|---|"]
    for definition in registry.definitions {
      let options = definition.options.map { "`\($0.key)`: \($0.meaning) (\($0.defaultText); \($0.source))" }
      lines.append(
        "| `\(definition.name)` | \(definition.summary); \(definition.source) | "
          + (options.isEmpty ? "none" : options.joined(separator: "<br>")) + " | "
          + (definition.isOnByDefault ? "on" : "**off**") + " |")
    }
    return lines.joined(separator: "\n")
  }
}

/// Small builders for schema nodes (positions are irrelevant in generated JSON).
extension JSONNode {
  static func object(_ members: [(String, JSONNode)]) -> JSONNode {
    JSONNode(value: .object(members.map { (key: $0.0, value: $0.1) }), line: 0, column: 0)
  }

  static func array(_ elements: [JSONNode]) -> JSONNode { JSONNode(value: .array(elements), line: 0, column: 0) }
  static func string(_ text: String) -> JSONNode { JSONNode(value: .string(text), line: 0, column: 0) }
  static func bool(_ flag: Bool) -> JSONNode { JSONNode(value: .bool(flag), line: 0, column: 0) }

  static func number(_ value: Double) -> JSONNode {
    JSONNode(value: .number(ScenarioReader.format(value), value), line: 0, column: 0)
  }
}
