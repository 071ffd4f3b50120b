/// A 64-bit hash over the ordered trajectory of processed events (time, kind, entity).
///
/// Equal fingerprints mean, with overwhelming probability, that two runs processed the same events
/// at the same times in the same order.
public struct TrajectoryFingerprint: Hashable, Sendable, BitwiseCopyable {
  /// The running hash value.
  public var value: UInt64 { state }
  @usableFromInline var state: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// The empty trajectory's fingerprint.
  public init() {}

  /// The fingerprint whose value is `value` (a part's, read back from a shard's file).
  public init(value: UInt64) { state = value }

  /// Folds one processed event into the hash.
  @inlinable public mutating func add(time: Int64, kind: UInt32, entity: UInt32) {
    // Two rounds of multiply-rotate (as in FxHash): cheap per event, order-sensitive.
    state = ((state ^ UInt64(bitPattern: time)) &* 0x9E37_79B9_7F4A_7C15).rotatedLeft(29)
    state = ((state ^ (UInt64(kind) << 32 | UInt64(entity))) &* 0xBF58_476D_1CE4_E5B9).rotatedLeft(31)
  }

  /// The fingerprint of a byte string (a file's bytes, a canonical text), position by position.
  /// Inlinable, so that it is specialised where it is called: generic, a resolved scenario's
  /// bytes took a quarter of a run of 20,000 timeline entries.
  @inlinable public init<Bytes: Sequence<UInt8>>(bytes: Bytes) {
    self.init()
    for (index, byte) in bytes.enumerated() { add(time: Int64(index), kind: UInt32(byte), entity: 0) }
  }

  /// The fingerprint as 16 lowercase hex digits (the state passed through a final mixer).
  public var hex: String {
    let digits = String(SplitMix64.finalize(value), radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
  }
}
