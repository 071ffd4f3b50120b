import SimMetrics
import SimModel

extension ScenarioBuilder {

  /// Reads the `model` section into a full model description.
  func dataModel(_ node: JSONNode?) -> DataModel {
    guard
      let fields = reader.object(node, "model", known: ScenarioObject.model.keys)
    else {
      return .standard
    }
    var model = DataModel()
    model.version = reader.integer(fields["version"], "model.version", min: 1, max: 1_000_000) ?? 1
    model.simulateRejection = reader.bool(fields["simulateRejection"], "model.simulateRejection") ?? false
    for (index, entry)
      in (reader.array(fields["entities"], "model.entities", maxCount: ScenarioDecoder.Limits.maxEntities) ?? [])
      .enumerated()
    {
      let path = ScenarioReader.index("model.entities", index)
      guard let entity = reader.object(entry, path, known: ScenarioObject.entity.keys) else { continue }
      let name = reader.required(entity, "name", path) { reader.name($0, $1) } ?? "Entity\(index)"
      if model.entities.contains(where: { $0.name == name }) {
        reader.problem(ScenarioReader.join(path, "name"), "entity \"\(name)\" is declared twice")
      }
      var attributes: [DataModel.Attribute] = []
      let attributesPath = ScenarioReader.join(path, "attributes")
      for (attributeIndex, node) in (reader.array(entity["attributes"], attributesPath, maxCount: 1000) ?? [])
        .enumerated()
      {
        if let attribute = self.attribute(node, ScenarioReader.index(attributesPath, attributeIndex)) {
          attributes.append(attribute)
        }
      }
      if entity["attributes"] == nil && entity["parent"] == nil {
        attributes = DataModel.standard.entities[0].attributes
      }
      var relationships: [DataModel.Relationship] = []
      let relationshipsPath = ScenarioReader.join(path, "relationships")
      for (relationshipIndex, node) in (reader.array(entity["relationships"], relationshipsPath, maxCount: 1000) ?? [])
        .enumerated()
      {
        if let relationship = self.relationship(node, ScenarioReader.index(relationshipsPath, relationshipIndex)) {
          relationships.append(relationship)
        }
      }
      // The simpler form: N many-to-many links per object, as anonymous CDMR links.
      if let links = reader.integer(
        entity["manyToManyLinks"], ScenarioReader.join(path, "manyToManyLinks"), min: 0, max: 1000), links > 0
      {
        for link in 0..<links {
          relationships.append(
            DataModel.Relationship(
              name: "links\(link)", destination: name, toMany: true, optional: true, inverse: "links\(link)",
              ordered: false,
              deleteRule: .nullify, path: ScenarioReader.join(path, "manyToManyLinks")))
        }
      }
      let constraintsPath = ScenarioReader.join(path, "uniqueConstraints")
      let constraints = (reader.array(entity["uniqueConstraints"], constraintsPath, maxCount: 100) ?? []).enumerated()
        .compactMap { i, node in
          reader.array(node, ScenarioReader.index(constraintsPath, i), maxCount: 100)?.enumerated().compactMap {
            j, name in
            reader.string(name, ScenarioReader.index(ScenarioReader.index(constraintsPath, i), j))
          }
        }
      model.entities.append(
        DataModel.Entity(
          name: name, parent: reader.string(entity["parent"], ScenarioReader.join(path, "parent")),
          attributes: attributes,
          relationships: relationships, uniqueConstraints: constraints, path: path))
    }
    if fields["entities"] != nil && model.entities.isEmpty {
      reader.problem("model.entities", "a model needs at least one entity")
    }
    if model.entities.isEmpty { model.entities = DataModel.standard.entities }
    model.indexLineages()
    for (index, node) in (reader.array(fields["configurations"], "model.configurations", maxCount: 100) ?? [])
      .enumerated()
    {
      let path = ScenarioReader.index("model.configurations", index)
      guard let configuration = reader.object(node, path, known: ScenarioObject.configuration.keys) else { continue }
      let name = reader.required(configuration, "name", path) { reader.name($0, $1) } ?? "Configuration\(index)"
      let entitiesPath = ScenarioReader.join(path, "entities")
      let entities = (reader.array(configuration["entities"], entitiesPath, maxCount: 1000) ?? []).enumerated()
        .compactMap {
          reader.string($0.element, ScenarioReader.index(entitiesPath, $0.offset))
        }
      model.configurations.append(
        DataModel.Configuration(
          name: name, entities: entities,
          syncs: reader.bool(configuration["syncs"], ScenarioReader.join(path, "syncs")) ?? true, path: path))
    }
    checkReferences(model)
    return model
  }

  func attribute(_ node: JSONNode, _ path: String) -> DataModel.Attribute? {
    guard let fields = reader.object(node, path, known: ScenarioObject.attribute.keys) else { return nil }
    let name = reader.required(fields, "name", path) { reader.name($0, $1) } ?? "attribute"
    var type = DataModel.AttributeType.string
    if let text = reader.string(fields["type"], ScenarioReader.join(path, "type")) {
      if let coreData = DataModel.AttributeType(rawValue: text) {
        type = coreData
      } else if let swift = DataModel.AttributeType.swiftNames[text] {
        type = swift
      } else {
        let names = DataModel.AttributeType.allCases.map(\.rawValue) + DataModel.AttributeType.swiftNames.keys.sorted()
        reader.problem(
          ScenarioReader.join(path, "type"), "unknown type \"\(text)\"",
          hint: suggestion(for: text, among: names).map { "did you mean \"\($0)\"?" })
      }
    }
    var unique = reader.bool(fields["unique"], ScenarioReader.join(path, "unique")) ?? false
    // SwiftData's @Attribute options: .unique, .externalStorage, .transformable(by:).
    for (index, option) in (reader.array(fields["options"], ScenarioReader.join(path, "options"), maxCount: 10) ?? [])
      .enumerated()
    {
      switch reader.string(option, ScenarioReader.index(ScenarioReader.join(path, "options"), index)) {
      case "unique": unique = true
      case "transformable": type = .transformable
      case "externalStorage", nil: break
      case let other?:
        reader.problem(
          ScenarioReader.index(ScenarioReader.join(path, "options"), index), "unknown option \"\(other)\"",
          hint: "unique, externalStorage or transformable")
      }
    }
    let bytes =
      reader.integer(fields["bytes"], ScenarioReader.join(path, "bytes"), min: 0, max: 1_000_000_000)
      ?? type.typicalBytes
    let maxBytes = reader.integer(fields["maxBytes"], ScenarioReader.join(path, "maxBytes"), min: 0, max: 1_000_000_000)
    if bytes > ServerParameters.documentedMaxAssetBytes {
      reader.warning(
        ScenarioReader.join(path, "bytes"),
        "\(bytes) bytes is over the 50 MB CloudKit documents for an asset field (CloudKit Web Services, Data Size "
          + "Limits); the model uploads it all the same",
        hint: "store a file this large outside the record, or split it")
    }
    return DataModel.Attribute(
      name: name, type: type, optional: reader.bool(fields["optional"], ScenarioReader.join(path, "optional")) ?? true,
      hasDefault: fields["default"] != nil, bytes: bytes, maxBytes: maxBytes, unique: unique, path: path)
  }

  func relationship(_ node: JSONNode, _ path: String) -> DataModel.Relationship? {
    guard let fields = reader.object(node, path, known: ScenarioObject.relationship.keys) else { return nil }
    let name = reader.required(fields, "name", path) { reader.name($0, $1) } ?? "relationship"
    let destination = reader.required(fields, "destination", path) { reader.string($0, $1) } ?? ""
    return DataModel.Relationship(
      name: name, destination: destination,
      toMany: reader.bool(fields["toMany"], ScenarioReader.join(path, "toMany")) ?? false,
      optional: reader.bool(fields["optional"], ScenarioReader.join(path, "optional")) ?? true,
      inverse: reader.string(fields["inverse"], ScenarioReader.join(path, "inverse")),
      ordered: reader.bool(fields["ordered"], ScenarioReader.join(path, "ordered")) ?? false,
      deleteRule: reader.choice(
        fields["deleteRule"], ScenarioReader.join(path, "deleteRule"), DataModel.DeleteRule.self) ?? .nullify,
      path: path)
  }

  /// Names that must exist: parents, destinations, configuration members.
  func checkReferences(_ model: DataModel) {
    let names = model.entities.map(\.name)
    func check(_ name: String, _ path: String) {
      guard !names.contains(name) else { return }
      reader.problem(
        path, "no entity named \"\(name)\"", hint: suggestion(for: name, among: names).map { "did you mean \"\($0)\"?" }
      )
    }
    for entity in model.entities {
      if let parent = entity.parent { check(parent, ScenarioReader.join(entity.path, "parent")) }
      for relationship in entity.relationships where !relationship.isAnonymousLink {
        check(relationship.destination, ScenarioReader.join(relationship.path, "destination"))
      }
    }
    for configuration in model.configurations {
      for (index, name) in configuration.entities.enumerated() {
        check(name, ScenarioReader.index(ScenarioReader.join(configuration.path, "entities"), index))
      }
    }
    checkInheritanceCycles(model)
  }

  /// An entity may not be its own ancestor (`"parent"` chains that come back): each cycle is one
  /// error, at the first of its entities in the file. Linear in the entities.
  func checkInheritanceCycles(_ model: DataModel) {
    var index: [String: Int] = [:]  // lookup only
    for (position, entity) in model.entities.enumerated() where index[entity.name] == nil {
      index[entity.name] = position
    }
    // 0: not visited, 1: on the current chain, 2: done.
    var state = [UInt8](repeating: 0, count: model.entities.count)
    for start in model.entities.indices where state[start] == 0 {
      var chain: [Int] = []
      var current: Int? = start
      while let node = current, state[node] == 0 {
        state[node] = 1
        chain.append(node)
        current = model.entities[node].parent.flatMap { index[$0] }
      }
      if let node = current, state[node] == 1, let first = chain.firstIndex(of: node) {
        let cycle = chain[first...].map { model.entities[$0].name } + [model.entities[node].name]
        let entity = model.entities[chain[first...].min()!]
        reader.problem(
          ScenarioReader.join(entity.path, "parent"),
          "inheritance cycle: " + cycle.joined(separator: " → "),
          hint: "an entity cannot be its own ancestor; remove one \"parent\"")
      }
      for node in chain { state[node] = 2 }
    }
  }
}
