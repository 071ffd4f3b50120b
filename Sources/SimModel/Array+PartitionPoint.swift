extension Array {
  /// The first position whose element `isBefore` says is not before the point sought, in an
  /// array where every element it is true of comes first: a binary search.
  @inline(__always)
  func partitionPoint(_ isBefore: (Element) -> Bool) -> Int {
    var (low, high) = (0, count)
    while low < high {
      let middle = (low + high) / 2
      if isBefore(self[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
