//! Where the running executable's read-only data lies in its file: the non-writable `PT_LOAD`
//! segments of the loaded image (less `PT_GNU_RELRO`, which the loader writes before it seals
//! it), found from the program headers of `/proc/self/exe` and the load address the kernel chose
//! (`/proc/self/maps`), and the file itself, opened once.
//!
//! The load address comes from where a byte of this very module lies: the mapping that holds
//! it names its file offset, and the segment holding that offset its address in the image. (The
//! first mapping at file offset 0 was trusted before; a symbolizer or a profiler that maps the
//! executable itself adds another, and moved every offset.) Every byte of every range is then
//! compared with the file, once, before the first `sendfile`.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};

use object::elf::{PF_W, PT_GNU_RELRO, PT_LOAD};
use object::read::elf::{FileHeader, ProgramHeader};

/// One stretch of read-only memory that is a copy of a stretch of the executable file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    start: usize,
    end: usize,
    offset: u64,
}

/// The running executable: its file (kept open: a binary replaced by rename while running keeps
/// its inode here) and its read-only ranges.
#[derive(Debug)]
pub(crate) struct Image {
    pub(crate) file: File,
    ranges: Vec<Range>,
}

impl Image {
    /// Where `bytes` lie in the file, when all of them lie in one read-only range.
    pub(crate) fn offset_of(&self, bytes: &[u8]) -> Option<u64> {
        let start = bytes.as_ptr() as usize;
        let end = start.checked_add(bytes.len())?;
        self.ranges
            .iter()
            .find(|range| range.start <= start && end <= range.end)
            .map(|range| range.offset + (start - range.start) as u64)
    }

    /// Reads the image of the running process.
    pub(crate) fn load() -> io::Result<Image> {
        let file = File::open("/proc/self/exe")?;
        let identity = file.metadata()?;
        let data = object::ReadCache::new(&file);
        let header = object::elf::FileHeader64::<object::Endianness>::parse(&data)
            .map_err(|error| invalid(format!("not a 64-bit ELF executable: {error}")))?;
        let endian = header
            .endian()
            .map_err(|error| invalid(error.to_string()))?;
        let segments = header
            .program_headers(endian, &data)
            .map_err(|error| invalid(error.to_string()))?;
        let maps = std::fs::read_to_string("/proc/self/maps")?;
        let device = (
            rustix::fs::major(identity.dev()),
            rustix::fs::minor(identity.dev()),
        );
        let mapped = mappings_of(&maps, device, identity.ino());
        let bias = load_bias(&mapped, segments, endian)?;
        let relro: Vec<(usize, usize)> = segments
            .iter()
            .filter(|segment| segment.p_type(endian) == PT_GNU_RELRO)
            .map(|segment| {
                let start = bias + segment.p_vaddr(endian) as usize;
                (start, start + segment.p_memsz(endian) as usize)
            })
            .collect();
        let mut ranges = Vec::new();
        for segment in segments {
            if segment.p_type(endian) != PT_LOAD || segment.p_flags(endian) & PF_W != 0 {
                continue;
            }
            let start = bias + segment.p_vaddr(endian) as usize;
            // Only the bytes the file holds (`p_filesz`), never the zero-filled rest.
            let range = Range {
                start,
                end: start + segment.p_filesz(endian) as usize,
                offset: segment.p_offset(endian),
            };
            for piece in without(range, &relro) {
                // Trust a range only where the kernel says it is a read-only, private map of
                // this very file at that offset.
                if mapped.iter().any(|mapping| mapping.covers(&piece)) {
                    ranges.push(piece);
                }
            }
        }
        if ranges.is_empty() {
            return Err(invalid(
                "no read-only segment is mapped from the file".to_owned(),
            ));
        }
        let image = Image { file, ranges };
        image.check()?;
        Ok(image)
    }

    /// Compares every byte of every range in memory with the file, a megabyte at a time: a
    /// wrong offset, or a page that is not the file's, is found here, once, never in a response.
    fn check(&self) -> io::Result<()> {
        const CHUNK: usize = 1024 * 1024;
        let mut file = vec![0u8; CHUNK];
        for range in &self.ranges {
            let mut at = range.start;
            while at < range.end {
                let len = (range.end - at).min(CHUNK);
                // SAFETY: the range is a read-only mapping of the executable (checked against
                // /proc/self/maps in `load`), mapped for the life of the process.
                let memory = unsafe { std::slice::from_raw_parts(at as *const u8, len) };
                let offset = range.offset + (at - range.start) as u64;
                self.file.read_exact_at(&mut file[..len], offset)?;
                if memory != &file[..len] {
                    return Err(invalid(format!(
                        "memory at {at:#x} differs from the file at offset {offset:#x}"
                    )));
                }
                at += len;
            }
        }
        Ok(())
    }
}

/// A byte of this module's own read-only data: where the image is loaded is learnt from where
/// it lies.
static ANCHOR: [u8; 16] = *b"bindery zerocopy";

/// The load bias of the image: the address of `ANCHOR` less its address in the ELF file, found
/// through the read-only mapping of the executable that holds it.
fn load_bias(
    mapped: &[Mapping],
    segments: &[object::elf::ProgramHeader64<object::Endianness>],
    endian: object::Endianness,
) -> io::Result<usize> {
    let anchor = std::hint::black_box(&ANCHOR).as_ptr() as usize;
    let mapping = mapped
        .iter()
        .find(|mapping| mapping.start <= anchor && anchor < mapping.end)
        .ok_or_else(|| {
            invalid("this code is not in a read-only map of the executable".to_owned())
        })?;
    let offset = mapping.offset + (anchor - mapping.start) as u64;
    let segment = segments
        .iter()
        .find(|segment| {
            let start = segment.p_offset(endian);
            segment.p_type(endian) == PT_LOAD
                && start <= offset
                && offset < start + segment.p_filesz(endian)
        })
        .ok_or_else(|| invalid("no PT_LOAD segment holds this code's data".to_owned()))?;
    let address = segment.p_vaddr(endian) + (offset - segment.p_offset(endian));
    anchor
        .checked_sub(usize::try_from(address).unwrap_or(usize::MAX))
        .ok_or_else(|| invalid("load address below the image's first address".to_owned()))
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// A line of `/proc/self/maps` that maps the executable read-only.
struct Mapping {
    start: usize,
    end: usize,
    offset: u64,
}

impl Mapping {
    fn covers(&self, range: &Range) -> bool {
        self.start <= range.start
            && range.end <= self.end
            && self.offset + (range.start - self.start) as u64 == range.offset
    }
}

/// The read-only, private mappings of the file `inode` on `device` (major, minor).
fn mappings_of(maps: &str, device: (u32, u32), inode: u64) -> Vec<Mapping> {
    maps.lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (start, end) = fields.next()?.split_once('-')?;
            let perms = fields.next()?;
            let offset = u64::from_str_radix(fields.next()?, 16).ok()?;
            let (major, minor) = fields.next()?.split_once(':')?;
            let line_device = (
                u32::from_str_radix(major, 16).ok()?,
                u32::from_str_radix(minor, 16).ok()?,
            );
            let line_inode: u64 = fields.next()?.parse().ok()?;
            let is_read_only = perms.starts_with('r') && perms.as_bytes().get(1) == Some(&b'-');
            let is_private = perms.as_bytes().get(3) == Some(&b'p');
            let is_this_file = line_inode == inode && line_device == device;
            (is_this_file && is_read_only && is_private).then(|| Mapping {
                start: usize::from_str_radix(start, 16).unwrap_or(0),
                end: usize::from_str_radix(end, 16).unwrap_or(0),
                offset,
            })
        })
        .filter(|mapping| mapping.start < mapping.end)
        .collect()
}

/// `range` less every interval of `holes`, as the pieces that remain.
fn without(range: Range, holes: &[(usize, usize)]) -> Vec<Range> {
    let mut pieces = vec![range];
    for &(hole_start, hole_end) in holes {
        pieces = pieces
            .into_iter()
            .flat_map(|piece| {
                let mut kept = Vec::new();
                if hole_end <= piece.start || piece.end <= hole_start {
                    kept.push(piece);
                    return kept;
                }
                if piece.start < hole_start {
                    kept.push(Range {
                        end: hole_start,
                        ..piece
                    });
                }
                if hole_end < piece.end {
                    kept.push(Range {
                        start: hole_end,
                        end: piece.end,
                        offset: piece.offset + (hole_end - piece.start) as u64,
                    });
                }
                kept
            })
            .collect();
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::{Range, without};

    #[test]
    fn holes_are_cut_out_with_their_offsets() {
        let range = Range {
            start: 100,
            end: 200,
            offset: 1000,
        };
        assert_eq!(without(range, &[(0, 50)]), vec![range]);
        assert_eq!(
            without(range, &[(120, 150)]),
            vec![
                Range {
                    start: 100,
                    end: 120,
                    offset: 1000
                },
                Range {
                    start: 150,
                    end: 200,
                    offset: 1050
                }
            ]
        );
        assert!(without(range, &[(0, 300)]).is_empty());
    }
}
