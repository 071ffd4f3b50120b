import SimModel

/// The rules a Core Data / SwiftData model must follow to sync through CloudKit ([CDModel], [Rules],
/// 003; research §9). Each violation names the JSON path, the rule, its consequence and the fix.
enum ModelRules {
  /// Checks `model`; rules CloudKit enforces are errors (warnings when the scenario simulates the
  /// refusal), advice is a warning.
  @discardableResult
  static func check(_ model: DataModel, zones: [(scope: DatabaseScope, owner: Int)], reader: ScenarioReader) -> Bool {
    var violated = false
    func enforced(_ path: String, _ rule: String, _ consequence: String, fix: String) {
      violated = true
      let message = "\(rule): \(consequence)"
      if model.simulateRejection {
        reader.warning(path, message + " (simulated: the store's setup fails)", hint: fix)
      } else {
        reader.problem(path, message, hint: fix)
      }
    }
    for entity in model.entities {
      if !entity.uniqueConstraints.isEmpty {
        enforced(
          ScenarioReader.join(entity.path, "uniqueConstraints"), "unique constraints aren't supported [A [CDModel]]",
          "CloudKit cannot enforce them across devices; two devices create the same object and both copies sync",
          fix: "remove the constraint and de-duplicate after import (lowest id wins)")
      }
      for attribute in entity.attributes {
        if attribute.unique {
          enforced(
            ScenarioReader.join(attribute.path, "unique"),
            "unique attributes (@Attribute(.unique)) aren't supported [A [SwiftDataSync]]",
            "the framework syncs concurrently, so uniqueness cannot be enforced; duplicates appear",
            fix: "drop .unique and de-duplicate after import")
        }
        if attribute.type == .undefined || attribute.type == .objectID {
          enforced(
            ScenarioReader.join(attribute.path, "type"),
            "\(attribute.type.rawValue) attributes aren't supported [A [CDModel]]",
            "CloudKit has no field type for them; the model fails validation (134060)",
            fix: "store the value as binary data or a string")
        }
        if !attribute.optional && !attribute.hasDefault {
          enforced(
            ScenarioReader.join(attribute.path, "optional"),
            "every attribute must be optional or have a default value [A [CDModel]; RE 134060]",
            "records may arrive without the value; the container refuses to mirror the store",
            fix: "make it optional or give it a default")
        }
      }
      for relationship in entity.relationships where !relationship.isAnonymousLink {
        checkRelationship(relationship, in: entity, model: model, enforced: enforced)
      }
      let fixedBytes = model.lineage(entity).flatMap(\.attributes).filter { !$0.type.assetEligible }.reduce(0) {
        $0 + ($1.maxBytes ?? $1.bytes)
      }
      if fixedBytes > 700_000 {
        enforced(
          entity.path, "an entity must fit in 700,000 bytes [RE validator]",
          "its fields that cannot move to assets take \(fixedBytes) bytes; the model fails validation (134060)",
          fix: "move large values to binary data or string attributes (they become assets) or split the entity")
      }
    }
    for type in RecordMapping.recordTypes(model) where type.fields.count > 256 {
      let entity = model.entities.first { "CD_" + model.root(of: $0) == type.name }
      enforced(
        entity?.path ?? "model", "a record type has at most 256 fields [A TN3164]",
        "\(type.name) would have \(type.fields.count) (subentities share their root's record type)",
        fix: "split the entity, or give subentities their own root")
    }
    // The limit is per database: one account's private database holds its Core Data zone and a
    // zone per share it owns. Other accounts' databases, and the public one, count apart.
    var perOwner: [Int: Int] = [:]  // lookup only; the largest is reported
    for zone in zones where zone.scope != .public { perOwner[zone.owner, default: 0] += 1 }
    if let (owner, count) = perOwner.max(by: { ($0.value, -$0.key) < ($1.value, -$1.key) }), count > 1000 {
      enforced(
        "devices", "a database has at most 1,000 record zones [A TN3164]",
        "account \(owner)'s private database would hold \(count): its Core Data zone and one per share it owns",
        fix: "share fewer objects, or group them into fewer shares")
    }
    checkConfigurations(model, enforced: enforced)
    for entity in model.entities
    where entity.relationships.contains(where: { model.isManyToMany($0) && !$0.isAnonymousLink }) {
      reader.advice(
        entity.path, "each many-to-many link is its own CDMR record [A]",
        hint: "linking N objects costs N extra records to upload and fetch")
    }
    return violated
  }

  static func checkRelationship(
    _ relationship: DataModel.Relationship, in entity: DataModel.Entity, model: DataModel,
    enforced: (String, String, String, String) -> Void
  ) {
    let path = relationship.path
    if !relationship.optional {
      enforced(
        ScenarioReader.join(path, "optional"), "every relationship must be optional [A [CDModel]]",
        "CloudKit may save relationship changes non-atomically, so a record can arrive before the one it points to",
        "make it optional")
    }
    if relationship.ordered {
      enforced(
        ScenarioReader.join(path, "ordered"), "ordered relationships aren't supported [RE 134060]",
        "CloudKit records have no order; the model fails validation", "make it unordered and sort by an attribute")
    }
    if relationship.deleteRule == .deny {
      enforced(
        ScenarioReader.join(path, "deleteRule"), "the Deny delete rule isn't supported [A [CDModel]]",
        "a deletion on one device cannot be refused by data on another", "use Nullify or Cascade")
    }
    guard let inverse = relationship.inverse else {
      enforced(
        path, "every relationship must have an inverse [A [CDModel]]",
        "records can arrive out of order; without an inverse the relationship can't be repaired",
        "add an inverse relationship")
      return
    }
    if let destination = model.entity(named: relationship.destination),
      !model.lineage(destination).flatMap(\.relationships).contains(where: { $0.name == inverse })
    {
      enforced(
        ScenarioReader.join(path, "inverse"), "every relationship must have an inverse [A [CDModel]]",
        "\"\(inverse)\" is not a relationship of \(relationship.destination)",
        "declare the inverse on \(relationship.destination)")
    }
  }

  static func checkConfigurations(_ model: DataModel, enforced: (String, String, String, String) -> Void) {
    guard !model.configurations.isEmpty else { return }
    for entity in model.entities {
      let mine = Set(model.configurations.filter { $0.entities.contains(entity.name) }.map(\.name))
      for relationship in entity.relationships where !relationship.isAnonymousLink {
        let theirs = Set(model.configurations.filter { $0.entities.contains(relationship.destination) }.map(\.name))
        if !mine.isEmpty && !theirs.isEmpty && mine.isDisjoint(with: theirs) {
          enforced(
            relationship.path, "no relationships across configurations [A [CDModel]]",
            "\(entity.name) and \(relationship.destination) live in different stores, so the link cannot be stored or synced",
            "put both entities in one configuration")
        }
      }
    }
  }
}
