/// How a model becomes CloudKit record types (Reading CloudKit records [A], WWDC19 [W]): one
/// `CD_<root entity>` type per inheritance tree with `CD_entityName`, a `CD_` field per attribute
/// (plus a `_ckAsset` companion for strings, binary data and transformables), a foreign key per
/// to-one relationship, and a `CDMR` type for many-to-many links.
public enum RecordMapping {
  public struct Field: Equatable, Sendable {
    public var name: String
    public var type: String
  }

  public struct RecordType: Sendable {
    public var name: String
    public var entities: [String]
    public var fields: [Field]
  }

  /// The entities that sync: all of them, or those of syncing configurations.
  static func syncing(_ model: DataModel) -> [DataModel.Entity] {
    guard !model.configurations.isEmpty else { return model.entities }
    let names = Set(model.configurations.filter(\.syncs).flatMap(\.entities))
    return model.entities.filter { names.contains($0.name) }
  }

  /// The record types of a model, in entity order; CDMR last when there are many-to-many links.
  public static func recordTypes(_ model: DataModel) -> [RecordType] {
    var types: [RecordType] = []
    var anyManyToMany = false
    for entity in syncing(model) {
      let root = model.root(of: entity)
      let name = "CD_" + root
      var index = types.firstIndex { $0.name == name }
      if index == nil {
        types.append(RecordType(name: name, entities: [], fields: [Field(name: "CD_entityName", type: "String")]))
        index = types.count - 1
      }
      types[index!].entities.append(entity.name)
      for attribute in entity.attributes {
        append(&types[index!], Field(name: "CD_" + attribute.name, type: attribute.type.fieldType))
        if attribute.type.assetEligible {
          append(&types[index!], Field(name: "CD_\(attribute.name)_ckAsset", type: "Asset"))
        }
      }
      for relationship in entity.relationships {
        if model.isManyToMany(relationship) { anyManyToMany = true }
        if !relationship.toMany {
          append(
            &types[index!],
            Field(name: "CD_" + relationship.name, type: "String (recordName of CD_\(relationship.destination))"))
        }
      }
    }
    if anyManyToMany {
      types.append(
        RecordType(
          name: "CDMR", entities: [],
          fields: [
            Field(name: "CD_entityNames", type: "String"), Field(name: "CD_recordNames", type: "String"),
            Field(name: "CD_relationships", type: "String"),
          ]))
    }
    return types
  }

  static func append(_ type: inout RecordType, _ field: Field) {
    if !type.fields.contains(where: { $0.name == field.name }) { type.fields.append(field) }
  }

  /// The record types as the CloudKit dashboard lists them.
  public static func describe(_ model: DataModel) -> String {
    var lines: [String] = []
    for type in recordTypes(model) {
      let entities =
        type.entities.isEmpty ? "many-to-many join records" : "entities: " + type.entities.joined(separator: ", ")
      lines.append("\(type.name)   (\(type.fields.count) fields; \(entities))")
      let width = type.fields.map(\.name.count).max() ?? 0
      for field in type.fields {
        lines.append("  " + field.name + String(repeating: " ", count: width - field.name.count + 2) + field.type)
      }
    }
    return lines.joined(separator: "\n")
  }
}
