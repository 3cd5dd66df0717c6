// A module the generator (built with every feature) wrote for a `gzip` catalog, or one reading
// a bundler's manifest, asks the runtime for the feature: compiled against bindery with its
// default features, one error each, naming it. (The generated code's own line.)
fn main() {
    bindery::__bindery_requires!(gzip);
    bindery::__bindery_requires!(vite);
}
