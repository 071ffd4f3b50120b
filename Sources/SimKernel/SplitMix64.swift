/// SplitMix64 (Steele, Lea and Flood, 2014): the seed expander behind every stream.
public struct SplitMix64: Sendable, BitwiseCopyable {
  /// The generator's whole state.
  @usableFromInline var state: UInt64

  /// A generator starting from `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  @inlinable public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    return Self.finalize(state)
  }

  /// The SplitMix64 output function: a bijective 64-bit mixer.
  @inlinable public static func finalize(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// FNV-1a over bytes: a stable (unseeded) hash for naming random streams.
///
/// Swift's `Hasher` is seeded per process, so it must never name a stream.
public enum StableHash {
  /// FNV-1a's starting value (its offset basis).
  public static let fnv1aBasis: UInt64 = 0xCBF2_9CE4_8422_2325

  /// The 64-bit FNV-1a hash of the UTF-8 bytes of `text`.
  public static func fnv1a(_ text: String) -> UInt64 { fnv1a(text.utf8) }

  /// The 64-bit FNV-1a hash of `bytes`, continuing from `hash` (so a file can be hashed in chunks).
  @inlinable public static func fnv1a(_ bytes: some Sequence<UInt8>, from hash: UInt64 = fnv1aBasis) -> UInt64 {
    var hash = hash
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
  }

  /// Combines two 64-bit values into one, order-sensitively.
  @inlinable public static func combine(_ a: UInt64, _ b: UInt64) -> UInt64 {
    SplitMix64.finalize(a ^ SplitMix64.finalize(b &+ 0x9E37_79B9_7F4A_7C15))
  }
}
