/// Typed indices into the world's state arrays, so that ids of different things cannot be mixed.

/// An iCloud account.
public struct AccountID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

/// One install of the app on one device.
public struct DeviceID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

/// A CloudKit record zone (private zone of an account, a shared zone, or the public database).
public struct ZoneID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

/// One store on one device that mirrors one zone (a device may have several).
public struct MirrorID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

/// A scheduler activity (export, import or setup).
public struct ActivityID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

/// One field-level change made by a person (MODEL §10 "write"). Raw value 0 means "no write".
public struct WriteID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static let none = WriteID(0)
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}

/// An object (a future CloudKit record) within its zone.
public struct ObjectID: Hashable, Comparable, Sendable, BitwiseCopyable {
  public var raw: Int32
  public init(_ raw: Int) { self.raw = Int32(raw) }
  public var index: Int { Int(raw) }
  public static func < (a: Self, b: Self) -> Bool { a.raw < b.raw }
}
