/// A field a replayed store set itself (`ClientHost+ReplayedWrites`): laid over the copy replayed
/// from its pages.
///
/// A page sets every field of its records that is not dirty, so the field holds this value while
/// it is dirty, and after it is clean until a page that carries its record is applied.
struct OverlayField: BitwiseCopyable {
  var field: Int32
  var local: LocalField
  /// How many pages the store had applied when the field took this value or became clean: a
  /// page at this position in its log, or later, overwrites it once it is clean.
  var since: Int32
}
