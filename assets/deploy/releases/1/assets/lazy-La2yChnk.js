export function lazy() { return 'a lazily imported chunk, the same in both releases'; }
