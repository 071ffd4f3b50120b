/// Production schema changes ([CDModel], [Rules] "Add-Only, No-Delete, No-Change"): after
/// promotion, record types and fields can be added but never deleted, renamed or retyped.
public enum SchemaDiff {
  public struct Change: Sendable, Equatable {
    public var allowed: Bool
    public var message: String
  }

  /// The changes from `old` to `new`, forbidden ones first within each record type.
  public static func compare(old: DataModel, new: DataModel) -> [Change] {
    let oldTypes = RecordMapping.recordTypes(old)
    let newTypes = RecordMapping.recordTypes(new)
    var changes: [Change] = []
    for type in oldTypes {
      guard let updated = newTypes.first(where: { $0.name == type.name }) else {
        changes.append(
          Change(
            allowed: false,
            message:
              "record type \(type.name) deleted: production record types are immutable [A]; its records stay on the server and installed older versions keep reading and writing them (keep the entity, or move to a new container)"
          ))
        continue
      }
      let removed = type.fields.filter { field in !updated.fields.contains { $0.name == field.name } }
      let added = updated.fields.filter { field in !type.fields.contains { $0.name == field.name } }
      for field in removed {
        if let renamed = added.first(where: { $0.type == field.type }) {
          changes.append(
            Change(
              allowed: false,
              message:
                "field \(type.name).\(field.name) renamed to \(renamed.name)? A rename is a delete plus an add: existing values stay in \(field.name), which can never be deleted, and older versions keep using it"
            ))
        } else {
          changes.append(
            Change(
              allowed: false,
              message:
                "field \(type.name).\(field.name) deleted: production fields are immutable [A]; older versions keep writing it and its data is stranded (stop using it instead)"
            ))
        }
      }
      for field in type.fields {
        if let now = updated.fields.first(where: { $0.name == field.name }), now.type != field.type {
          changes.append(
            Change(
              allowed: false,
              message:
                "field \(type.name).\(field.name) changed type \(field.type) → \(now.type): existing records hold the old type and the schema cannot change it (add a new field instead)"
            ))
        }
      }
      for field in added where !removed.contains(where: { $0.type == field.type }) {
        changes.append(
          Change(
            allowed: true,
            message: "field \(type.name).\(field.name) (\(field.type)) added: fine; older versions ignore it"))
      }
    }
    for type in newTypes where !oldTypes.contains(where: { $0.name == type.name }) {
      changes.append(Change(allowed: true, message: "record type \(type.name) added: fine; older versions ignore it"))
    }
    return changes
  }
}
