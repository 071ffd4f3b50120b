extension Array where Element: BitwiseCopyable {
  /// Removes every element, keeping the storage for reuse.
  ///
  /// The model empties short arrays (an export's plan, a store's history) several times per
  /// edit. `removeAll(keepingCapacity:)` is a general range replacement of about a hundred
  /// instructions even on an empty array; dropping a few elements from the end costs a few.
  @inline(__always) mutating func removeAllKeepingCapacity() {
    if count > 4 {
      removeAll(keepingCapacity: true)
      return
    }
    while !isEmpty { removeLast() }
  }

  /// Removes the first `k` elements, keeping the storage for reuse.
  @inline(__always) mutating func removeFirstKeepingCapacity(_ k: Int) {
    if k == count {
      removeAllKeepingCapacity()
    } else if k > 0 {
      removeFirst(k)
    }
  }
}
