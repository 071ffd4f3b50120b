/// A typed index into one of the world's state arrays: the phantom `Tag` keeps ids of different
/// things (devices, stores, writes …) from being mixed up, at the cost of an `Int32`.
public struct TypedID<Tag>: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  /// The id as an array index.
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

extension TypedID: CustomStringConvertible {
  public var description: String { String(raw) }
}

public enum AccountTag {}
public enum DeviceTag {}
public enum ZoneTag {}
public enum StoreTag {}
public enum ActivityTag {}
public enum WriteTag {}
public enum ObjectTag {}

/// An iCloud account.
public typealias AccountID = TypedID<AccountTag>
/// One install of the app on one device.
public typealias DeviceID = TypedID<DeviceTag>
/// A CloudKit record zone (private zone of an account, a shared zone, or the public database).
public typealias ZoneID = TypedID<ZoneTag>
/// One store on one device that stores one zone (a device may have several).
public typealias StoreID = TypedID<StoreTag>
/// A scheduler activity (export, import or setup).
public typealias ActivityID = TypedID<ActivityTag>
/// One field-level change made by a person (spec §10 "write"). Raw value 0 means "no write".
public typealias WriteID = TypedID<WriteTag>
/// An object (a future CloudKit record) within its zone.
public typealias ObjectID = TypedID<ObjectTag>

extension TypedID where Tag == WriteTag {
  /// No write: a field nobody has set.
  public static var none: WriteID { WriteID(0) }
}

extension TypedID where Tag == ActivityTag {
  /// No activity (a store with no pending or running one).
  public static var none: ActivityID { ActivityID(-1) }
}

extension TypedID where Tag == StoreTag {
  /// No store (a write table's unused first row, an unused zone slot).
  public static var none: StoreID { StoreID(-1) }
}

extension TypedID where Tag == ZoneTag {
  /// No zone (a local-only store, or a shared store its account has no access to).
  public static var none: ZoneID { ZoneID(-1) }
}

extension TypedID {
  /// Whether the id names something: every id but `none` does.
  public var exists: Bool { raw >= 0 }
}
