export function gone() { return 'a chunk only release 1 had'; }
