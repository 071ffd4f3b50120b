import SimMetrics
import SimModel

/// An app's Core Data / SwiftData model as a scenario describes it (issue 8): what the CloudKit
/// compatibility rules check, what the record mapping prints, and what sizes records.
public struct DataModel: Sendable {
  /// Core Data attribute types (SwiftData's Swift types map onto them).
  public enum AttributeType: String, Sendable, CaseIterable {
    case integer16, integer32, integer64, decimal, double, float, string, boolean, date, binary, uuid, uri
    case transformable, undefined, objectID

    /// SwiftData / Swift spellings of the same types.
    static let swiftNames: [String: AttributeType] = [
      "Int": .integer64, "Int16": .integer16, "Int32": .integer32, "Int64": .integer64, "Decimal": .decimal,
      "Double": .double, "Float": .float, "String": .string, "Bool": .boolean, "Date": .date, "Data": .binary,
      "UUID": .uuid, "URL": .uri,
    ]

    /// A typical size when the scenario gives none, bytes. [assumed]
    var typicalBytes: Int {
      switch self {
      case .integer16: 2
      case .integer32, .float: 4
      case .integer64, .double, .date, .boolean: 8
      case .decimal, .uuid: 16
      case .string, .uri: 32
      case .binary, .transformable: 1024
      case .undefined, .objectID: 8
      }
    }

    /// Whether values may move to a `CD_<attr>_ckAsset` asset. [A] Reading CloudKit records
    var assetEligible: Bool { self == .string || self == .binary || self == .transformable }

    /// The CloudKit field type the attribute becomes. [A] Reading CloudKit records
    var fieldType: String {
      switch self {
      case .integer16, .integer32, .integer64, .boolean: "Int(64)"
      case .double, .float: "Double"
      case .date: "Date/Time"
      case .binary, .transformable: "Bytes"
      case .decimal, .string, .uuid, .uri: "String"
      case .undefined, .objectID: "unsupported"
      }
    }
  }

  public enum DeleteRule: String, Sendable, CaseIterable {
    case nullify, cascade, deny, noAction
  }

  public struct Attribute: Sendable {
    public var name: String
    public var type: AttributeType
    public var optional: Bool
    public var hasDefault: Bool
    public var bytes: Int
    public var maxBytes: Int?
    public var unique: Bool
    public var path: String
  }

  public struct Relationship: Sendable {
    public var name: String
    public var destination: String
    public var toMany: Bool
    public var optional: Bool
    public var inverse: String?
    public var ordered: Bool
    public var deleteRule: DeleteRule
    public var path: String

    /// Whether it stands for one of an entity's `manyToManyLinks` (the short form): an anonymous
    /// link the model's rules and name checks leave alone.
    var isAnonymousLink: Bool { path.hasSuffix("manyToManyLinks") }
  }

  public struct Entity: Sendable {
    public var name: String
    /// The parent entity (inheritance): the record type is the root entity's. [A]
    public var parent: String?
    public var attributes: [Attribute]
    public var relationships: [Relationship]
    public var uniqueConstraints: [[String]]
    public var path: String
  }

  public struct Configuration: Sendable {
    public var name: String
    public var entities: [String]
    public var syncs: Bool
    public var path: String
  }

  /// The model version (the version-attribute strategy of [CDModel]).
  public var version = 1
  public var entities: [Entity] = [] {
    didSet {
      if entities.count == oldValue.count + 1, let added = entities.last {
        // One appended (as the decoder builds a model): the index grows by one entry.
        if positions[added.name] == nil { positions[added.name] = entities.count - 1 }
      } else {
        positions = Self.positions(of: entities)
      }
      lineages = []
    }
  }
  /// Each entity's ancestors' positions, root first (`indexLineages`), so that a model of 1,000
  /// entities in one chain is checked in milliseconds, not seconds.
  private var lineages: [[Int32]] = []

  /// Works out every entity's ancestors once, after the model is built.
  mutating func indexLineages() { lineages = entities.map(ancestors) }

  /// The positions of `entity`'s ancestors, root first (stops at unknown names or cycles).
  func ancestors(of entity: Entity) -> [Int32] {
    var chain: [Int32] = []
    var seen = Set<Int32>()  // membership only
    if let own = positions[entity.name] { seen.insert(Int32(own)) }
    var current = entity
    while let parent = current.parent, let next = positions[parent], seen.insert(Int32(next)).inserted {
      chain.append(Int32(next))
      current = entities[next]
    }
    return chain.reversed()
  }

  /// Where each entity name first appears in `entities` (lookup only), so that following a
  /// chain of parents is linear in its length, not in the model's size.
  private var positions: [String: Int] = [:]

  static func positions(of entities: [Entity]) -> [String: Int] {
    var result: [String: Int] = [:]
    for (index, entity) in entities.enumerated() where result[entity.name] == nil { result[entity.name] = index }
    return result
  }
  public var configurations: [Configuration] = []
  /// Run a model CloudKit would refuse, simulating the refusal (setup fails with 134060).
  public var simulateRejection = false

  /// The model of a scenario with no `model` section: one entity `Item` of four optional fields.
  public static var standard: DataModel {
    var model = DataModel()
    model.entities = [
      Entity(
        name: "Item", parent: nil,
        attributes: [("title", 64), ("body", 64), ("count", 8), ("flag", 8)].enumerated().map { index, pair in
          Attribute(
            name: pair.0, type: index < 2 ? .string : .integer64, optional: true, hasDefault: false, bytes: pair.1,
            maxBytes: nil, unique: false, path: "")
        },
        relationships: [], uniqueConstraints: [], path: "")
    ]
    return model
  }

  func entity(named name: String) -> Entity? { positions[name].map { entities[$0] } }

  /// The entity's ancestors, root first, then itself (stops at unknown names or cycles).
  func lineage(_ entity: Entity) -> [Entity] {
    let indexed =
      lineages.count == entities.count && positions[entity.name].map { entities[$0].parent == entity.parent } == true
    let chain = indexed ? lineages[positions[entity.name]!] : ancestors(of: entity)
    return chain.map { entities[Int($0)] } + [entity]
  }

  /// The root entity's name: the CloudKit record type is `CD_<root>`.
  func root(of entity: Entity) -> String { lineage(entity)[0].name }

  /// Whether a to-many relationship is many-to-many (its inverse is to-many too): a CDMR record per link.
  func isManyToMany(_ relationship: Relationship) -> Bool {
    guard relationship.toMany, let inverse = relationship.inverse,
      let destination = entity(named: relationship.destination)
    else { return false }
    return lineage(destination).flatMap(\.relationships).first { $0.name == inverse }?.toMany ?? false
  }

  /// What the simulation needs of each entity.
  public func entityDescriptions() -> [EntityDescription] {
    let syncing = Set(RecordMapping.syncing(self).map(\.name))
    return entities.map { entity in
      let attributes = lineage(entity).flatMap(\.attributes)
      let relationships = lineage(entity).flatMap(\.relationships)
      let toOne = relationships.first { !$0.toMany }.flatMap { relationship in
        entities.firstIndex { $0.name == relationship.destination }
      }
      var description = EntityDescription(
        name: entity.name, attributeBytes: attributes.map(\.bytes),
        manyToManyLinksPerObject: relationships.filter { isManyToMany($0) }.count, referencedEntity: toOne,
        assetEligible: attributes.map(\.type.assetEligible), recordType: "CD_" + root(of: entity))
      description.syncs = syncing.contains(entity.name)
      return description
    }
  }
}
