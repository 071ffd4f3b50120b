/// An object a scenario holds, declared once: its keys in the schema's order, each with its
/// schema, the keys it requires and what it is. The decoder reads an object's known keys from
/// here (`keys`), and the schema's object is made from the same rows (`schemaNode`), so a key
/// added to a declaration is one the decoder accepts and the schema describes; the reading of its
/// value is the only other thing to write. The declared objects are in `ScenarioObject+Declared`.
struct ScenarioObject: Sendable {
  /// The name the schema's template and the declarations use for it (`{"$generated":
  /// "object:name"}`).
  let name: String
  /// Each key and its schema (JSON text, where `{"$generated": part}` and `{"$parameters": group}`
  /// are filled in as elsewhere in the schema).
  let members: [(key: String, schema: String)]
  /// The keys it must have.
  let required: [String]
  /// What it is, after its keys in the schema; nil for none.
  let description: String?
  /// Whether every device key `ParameterTable` declares follows its own keys (a device's).
  var withDeviceParameters = false

  /// Every key it may have, in the schema's order.
  var keys: [String] { members.map(\.key) }

  /// Its schema: an object with these keys and no other.
  func schemaNode(parameters: ParameterSet, part: (String) -> JSONNode) -> JSONNode {
    var schema: [(String, JSONNode)] = [
      ("type", .string("object")), ("additionalProperties", .bool(false)),
      ("properties", propertiesNode(parameters: parameters, part: part)),
    ]
    if !required.isEmpty { schema.append(("required", .array(required.map { .string($0) }))) }
    if let description { schema.append(("description", .string(description))) }
    return .object(schema)
  }

  /// Its keys' schemas (the object's `properties`), the declared device keys after its own where
  /// it takes them.
  func propertiesNode(parameters: ParameterSet, part: (String) -> JSONNode) -> JSONNode {
    var properties = members.map { key, text in
      guard let node = try? JSONParser.parse(Array(text.utf8)) else {
        preconditionFailure("the schema of \(name).\(key) (ScenarioObject+Declared) is not JSON")
      }
      return (key, ScenarioSchema.expand(node, parameters: parameters, part: part))
    }
    if withDeviceParameters {
      for child in ParameterTable.children(of: "", table: parameters.device, groups: parameters.deviceGroups) {
        properties.append((child.key, ScenarioSchema.parametersNode("devices:" + child.key, parameters)))
      }
    }
    return .object(properties)
  }

  /// Every declared object, by name.
  static let all: [ScenarioObject] = [
    scenario, device, model, entity, attribute, relationship, configuration, timelineEntry, sweep, sweepFactor,
    seedRange, share, sharedStore, saveDebounce, saveInterval, reloadOnImport,
  ]

  /// The declared object `name`.
  static func named(_ name: String) -> ScenarioObject? { all.first { $0.name == name } }
}
