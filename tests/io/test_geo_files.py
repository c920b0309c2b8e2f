"""GeoJSON and WKT readers: golden areas and IoUs, agreement with shapely, round trips, every error path."""

import json
import math

import numpy as np
import pytest
import shapely
from hypothesis import given

import geoiou
from geoiou.errors import FormatError, InvalidArgumentError
from geoiou.io.geo import parse_wkt, read_geojson, read_wkt
from tests.strategies import (
    ci_settings,
    polygon_strategy,
    random_multipolygons,
    random_polygons,
    random_polygons_with_holes,
    rng,
)


def square(x0, y0, side):
    return [[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side], [x0, y0]]


def feature(geometry, **members):
    return {"type": "Feature", "geometry": geometry, **members}


def polygon(*rings):
    return {"type": "Polygon", "coordinates": list(rings)}


def collection(*features):
    return {"type": "FeatureCollection", "features": list(features)}


def write_json(path, document):
    path.write_text(json.dumps(document))
    return path


# --------------------------------------------------------------------------- golden values
def test_golden_areas_and_iou_of_a_feature_collection(tmp_path):
    path = write_json(
        tmp_path / "fields.geojson",
        collection(
            feature(polygon([[0, 0], [4, 0], [4, 3], [0, 3], [0, 0]]), id="a", properties={"crop": "wheat"}),
            feature(polygon([[2, 0], [6, 0], [6, 3], [2, 3], [2, 0]]), properties=None),
            feature(polygon(square(0, 0, 4), square(1, 1, 1))),  # a 4x4 square with a 1x1 hole
            feature({"type": "MultiPolygon", "coordinates": [[square(0, 0, 1)], [square(5, 5, 2)]]}, id=17),
        ),
    )
    features = read_geojson(path)
    # 4x3 rectangles; 16 - 1 for the holed square; 1 + 4 for the two parts.
    np.testing.assert_array_equal(features.regions.area, [12, 12, 15, 5])
    # The rectangles share [2, 4] x [0, 3] = 6 of a union of 12 + 12 - 6 = 18.
    assert geoiou.iou(features.regions[0], features.regions[1]) == pytest.approx(1 / 3, rel=1e-15)
    # The holed square against [0, 4] x [0, 3]: they share the rectangle but its part in the hole [1, 2]^2,
    # 12 - 1, and together cover the whole 4x4 square (the rectangle fills the hole): 11 / 16.
    assert geoiou.iou(features.regions[2], features.regions[0]) == pytest.approx(11 / 16, rel=1e-15)
    assert features.ids == ("a", 1, 2, 17)  # "id" where given, else the index in the collection
    assert features.properties == ({"crop": "wheat"}, {}, {}, {})
    assert features.report.read == 4 and features.report.source == str(path)


def test_a_geometry_collection_is_the_union_of_its_polygons():
    geometry = {
        "type": "GeometryCollection",
        "geometries": [
            polygon(square(0, 0, 2)),
            polygon(square(1, 0, 2)),
            {"type": "GeometryCollection", "geometries": [polygon(square(10, 10, 1))]},
        ],
    }
    region = read_geojson(geometry).regions[0]
    # [0, 3] x [0, 2] (two overlapping 2x2 squares: 4 + 4 - 2) and a nested unit square: 6 + 1.
    assert region.area == pytest.approx(7.0)
    assert parse_wkt(shapely.to_wkt(read_geojson(geometry).regions.to_shapely()[0])).area == pytest.approx(7.0)


def test_a_feature_and_a_bare_geometry_are_one_region_each():
    single = read_geojson(feature(polygon(square(0, 0, 3)), id="x", properties={"k": 1}))
    assert single.regions.shape == (1,) and single.ids == ("x",) and single.properties == ({"k": 1},)
    bare = read_geojson(polygon(square(0, 0, 3)))
    assert bare.regions.area.tolist() == [9.0] and bare.ids == (0,) and bare.properties == ({},)


def test_z_is_dropped_and_area_is_the_plane_projection():
    # The triangle (0,0), (4,0), (0,3) has area 6 in the x-y plane whatever the heights.
    ring = [[0, 0, 5], [4, 0, 1], [0, 3, 2], [0, 0, 5]]
    region = read_geojson(polygon(ring)).regions
    assert region.area[0] == 6.0 and not shapely.has_z(region.to_shapely()[0])
    assert parse_wkt("POLYGON Z ((0 0 5, 4 0 1, 0 3 2, 0 0 5))").area == 6.0


def test_unclosed_geojson_ring_is_closed_and_empty_polygon_is_an_empty_region():
    assert read_geojson(polygon([[0, 0], [2, 0], [2, 2]])).regions.area[0] == 2.0  # the closing edge is implied
    empty = read_geojson(polygon()).regions
    assert empty.area[0] == 0.0 and math.isnan(geoiou.iou(empty[0], empty[0]))  # 0/0, as for any empty region


def test_wkt_file_skips_comments_and_blank_lines(tmp_path):
    path = tmp_path / "parcels.wkt"
    path.write_text(
        "# parcels of 2024\n\nPOLYGON ((0 0, 4 0, 4 3, 0 3, 0 0))\n   \n"
        "MULTIPOLYGON (((0 0, 1 0, 1 1, 0 1, 0 0)), ((5 5, 7 5, 7 7, 5 7, 5 5)))\n"
    )
    parcels = read_wkt(path)
    np.testing.assert_array_equal(parcels.regions.area, [12, 5])  # 4 x 3; 1 + 2 x 2
    assert parcels.ids == (0, 1) and parcels.properties == ({}, {}) and parcels.report.read == 2


def test_empty_inputs_give_an_empty_batch(tmp_path):
    (tmp_path / "empty.wkt").write_text("# nothing\n")
    assert read_wkt(tmp_path / "empty.wkt").regions.shape == (0,)
    assert read_geojson(collection()).regions.shape == (0,)


# --------------------------------------------------------------------------- against shapely
def test_pairwise_iou_of_read_features_equals_shapely_on_the_same_geometries(tmp_path):
    gen = rng(11)
    originals = np.concatenate(
        [
            random_polygons(gen, 20, span=6).to_shapely(),
            random_polygons_with_holes(gen, 10, span=6).to_shapely(),
            random_multipolygons(gen, 10, span=6).to_shapely(),
        ]
    )
    document = collection(*(feature(json.loads(shapely.to_geojson(g)), id=f"p{k}") for k, g in enumerate(originals)))
    features = read_geojson(write_json(tmp_path / "many.geojson", document))
    assert features.ids == tuple(f"p{k}" for k in range(40))
    ours = geoiou.pairwise_iou(features.regions, features.regions)
    inter = shapely.area(shapely.intersection(originals[:, None], originals[None, :]))
    union = shapely.area(shapely.union(originals[:, None], originals[None, :]))
    assert (inter > 0).sum() > 60  # many overlapping pairs, not only the diagonal
    np.testing.assert_allclose(ours, inter / union, rtol=1e-9, atol=1e-12)


def test_wkt_file_regions_equal_the_geometries_written(tmp_path):
    originals = random_polygons_with_holes(rng(5), 15).to_shapely()
    path = tmp_path / "holes.wkt"
    path.write_text("\n".join(shapely.to_wkt(originals, rounding_precision=-1)))
    regions = read_wkt(path).regions
    # Same vertices in the same order; GEOS prints 16 significant digits, so the last bit may differ.
    assert shapely.equals_exact(regions.to_shapely(), originals, tolerance=1e-12).all()


# --------------------------------------------------------------------------- round trips
@ci_settings(60)
@given(original=polygon_strategy(), other=polygon_strategy())
def test_wkt_round_trip_keeps_area_and_iou(original, other):
    text = shapely.to_wkt(original.to_shapely(), rounding_precision=-1)  # full precision
    parsed = parse_wkt(text)
    assert parsed.shape == () and parsed.area == pytest.approx(original.area, rel=1e-12)
    assert geoiou.iou(parsed, original) == pytest.approx(1.0, rel=1e-12)
    assert geoiou.iou(parsed, other) == pytest.approx(geoiou.iou(original, other), rel=1e-9, abs=1e-12)


@ci_settings(40)
@given(original=polygon_strategy())
def test_geojson_round_trip_keeps_the_geometry(original):
    document = json.loads(shapely.to_geojson(original.to_shapely()))
    parsed = read_geojson(document).regions[0]
    assert shapely.equals(parsed.to_shapely(), original.to_shapely())
    assert geoiou.iou(parsed, original) == pytest.approx(1.0, rel=1e-12)


# --------------------------------------------------------------------------- errors
BOW_TIE = [[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]

BAD_FEATURES = [
    (
        feature({"type": "Point", "coordinates": [1, 2]}),
        r"features\[1\]: 'geometry' must be a Polygon, a MultiPolygon or a GeometryCollection of them \(got Point, "
        r"which has no area\)",
    ),
    (feature({"type": "LineString", "coordinates": [[0, 0], [1, 1]]}), r"\(got LineString, which has no area\)"),
    (
        feature(
            {
                "type": "GeometryCollection",
                "geometries": [polygon(square(0, 0, 1)), {"type": "Point", "coordinates": [0, 0]}],
            }
        ),
        r"\(got a GeometryCollection holding a Point, which has no area\)",
    ),
    (feature(None), r"features\[1\]: 'geometry' must be .* \(got null: the feature has no geometry\)"),
    (feature(polygon(BOW_TIE)), r"'geometry' must be a valid polygon \(got Self-intersection.*pass repair=True"),
    (
        feature({"type": "MultiPolygon", "coordinates": [[square(0, 0, 2)], [square(1, 1, 2)]]}),
        r"'geometry' must be a valid polygon \(got Self-intersection.*repair=True",
    ),
    (
        feature(polygon([[0, 0], [1, 0]])),
        r"'geometry' must be a well-formed GeoJSON Polygon \(got \[\[\[0, 0\], \[1, 0\]\]\]: "
        r"A linearring requires at least 4 coordinates",
    ),
    (
        feature(polygon([[0, 0], [1, "a"], [1, 1]])),
        r"'coordinates' must be nested arrays of numbers \(got \[\[\[0, 0\], \[1, 'a'\]",
    ),
    (feature({"type": "Polygon"}), r"'geometry' must have 'coordinates' \(got the fields \['type'\]\)"),
    (
        feature({"type": "Polgon", "coordinates": []}),
        r"'geometry' must be a GeoJSON geometry with a 'type' of .* \(got 'Polgon'\)",
    ),
    (feature(polygon([[0, 0], [1, 0], [1, math.nan], [0, 0]])), r"'geometry' must be finite coordinates"),
    (feature(polygon(square(0, 0, 1)), properties=[1, 2]), r"'properties' must be an object or null \(got \[1, 2\]\)"),
    (feature(polygon(square(0, 0, 1)), id=[1]), r"'id' must be a string or a number \(got \[1\]\)"),
    (
        {"type": "Polygon", "coordinates": [square(0, 0, 1)]},
        r"features\[1\]: a feature must be an object with \"type\": \"Feature\" \(got 'Polygon'\)",
    ),
    (7, r"a feature must be an object .* \(got 7\)"),
]


@pytest.mark.parametrize(("bad", "message"), BAD_FEATURES)
def test_an_invalid_feature_names_the_file_the_feature_and_the_fault(tmp_path, bad, message):
    path = write_json(tmp_path / "bad.geojson", collection(feature(polygon(square(0, 0, 1))), bad))
    with pytest.raises(FormatError, match=message) as caught:
        read_geojson(path)
    assert str(caught.value).startswith(f"{path}, features[1]: ")


@pytest.mark.parametrize(("bad", "message"), BAD_FEATURES)
def test_skipping_an_invalid_feature_keeps_the_others_and_their_ids(bad, message):
    features = read_geojson(
        collection(feature(polygon(square(0, 0, 1))), bad, feature(polygon(square(0, 0, 2)))), skip_invalid=True
    )
    assert features.report.read == 2 and [record.location for record in features.report.skipped] == ["features[1]"]
    np.testing.assert_array_equal(features.regions.area, [1, 4])
    assert features.ids == (0, 2)  # ids stay the features' indices in the file


def test_repair_makes_invalid_polygons_valid():
    bow_tie = read_geojson(polygon(BOW_TIE), repair=True).regions
    assert bow_tie.area[0] == pytest.approx(2.0)  # two triangles of area 1 meeting at (1, 1)
    overlapping = {"type": "MultiPolygon", "coordinates": [[square(0, 0, 2)], [square(1, 1, 2)]]}
    # make_valid keeps what the parts cover an odd number of times: the overlap [1, 2]^2 drops out, 4 + 4 - 2.
    assert read_geojson(overlapping, repair=True).regions.area[0] == pytest.approx(6.0)
    assert parse_wkt("POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))", repair=True).area == pytest.approx(2.0)


def test_skip_counts_group_the_reasons():
    point = feature({"type": "Point", "coordinates": [0, 0]})
    document = collection(point, feature(polygon(square(0, 0, 1))), point, feature(polygon(BOW_TIE)), feature(None))
    report = read_geojson(document, skip_invalid=True).report
    assert report.read == 1
    why = "'geometry' must be a Polygon, a MultiPolygon or a GeometryCollection of them"
    assert report.counts() == {why: 3, "'geometry' must be a valid polygon": 1}
    assert [record.location for record in report.skipped] == [
        "features[0]",
        "features[2]",
        "features[3]",
        "features[4]",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"type": "FeatureCollection", "features": [', r"bad\.geojson: not valid JSON"),
        ("[]", r"expected a GeoJSON object at the top level \(got list\)"),
        (
            '{"type": "Topology"}',
            r"'type' must be 'FeatureCollection', 'Feature' or a geometry type .* \(got 'Topology'\)",
        ),
        ('{"features": []}', r"\(got None\)"),
        (
            '{"type": "FeatureCollection", "features": {}}',
            r"'features' of a FeatureCollection must be a list \(got \{\}\)",
        ),
        ('{"type": "FeatureCollection", "type": "Feature"}', r"an object has the key 'type' twice"),
    ],
)
def test_a_malformed_geojson_file_is_a_whole_file_error(tmp_path, text, message):
    path = tmp_path / "bad.geojson"
    path.write_text(text)
    with pytest.raises(FormatError, match=message) as caught:
        read_geojson(path, skip_invalid=True)
    assert caught.value.location == ""


def test_a_bare_non_areal_geometry_is_an_invalid_record():
    with pytest.raises(FormatError, match=r"<dict>, geometry: .*\(got MultiLineString, which has no area\)"):
        read_geojson({"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]]]})
    skipped = read_geojson({"type": "Point", "coordinates": [0, 0]}, skip_invalid=True)
    assert skipped.regions.shape == (0,) and len(skipped.report.skipped) == 1


BAD_WKT = [
    (
        "POLYGN ((0 0, 1 0, 1 1, 0 0))",
        r"the text must be WKT \(got 'POLYGN \(\(0 0, 1 0, 1 1, 0 0\)\)': ParseException: Unknown type",
    ),
    ("POLYGON ((0 0, 1 0, 1 1))", r"the text must be WKT .*closed linestring"),
    ("POLYGON ((0 0, 1 0, 1 1, 0 0)) trailing", r"the text must be WKT .*Unexpected text after end of geometry"),
    (
        "POINT (1 2)",
        r"'geometry' must be a Polygon, a MultiPolygon or a GeometryCollection of them "
        r"\(got Point, which has no area\)",
    ),
    (
        "POLYGON ((0 0, 2 2, 2 0, 0 2, 0 0))",
        r"'geometry' must be a valid polygon \(got Self-intersection.*pass repair=True",
    ),
    ("POLYGON ((0 0, 1 0, nan 1, 0 0))", r"'geometry' must be finite coordinates"),
]


@pytest.mark.parametrize(("text", "message"), BAD_WKT)
def test_parse_wkt_errors_are_literal_format_errors(text, message):
    with pytest.raises(FormatError, match=message) as caught:
        parse_wkt(text)
    assert caught.value.source == "<literal>" and str(caught.value).startswith("<literal>: ")


@pytest.mark.parametrize(("text", "message"), BAD_WKT)
def test_wkt_file_errors_name_the_line_and_skipping_keeps_the_rest(tmp_path, text, message):
    path = tmp_path / "bad.wkt"
    path.write_text(f"# header\nPOLYGON ((0 0, 1 0, 1 1, 0 0))\n\n{text}\nPOLYGON ((0 0, 3 0, 3 3, 0 0))\n")
    with pytest.raises(FormatError, match=message) as caught:
        read_wkt(path)
    assert str(caught.value).startswith(f"{path}, line 4: ")
    read = read_wkt(path, skip_invalid=True)
    assert read.report.read == 2 and [record.location for record in read.report.skipped] == ["line 4"]
    np.testing.assert_array_equal(read.regions.area, [0.5, 4.5])
    assert read.ids == (0, 2)


def test_parse_wkt_refuses_what_is_not_text():
    with pytest.raises(InvalidArgumentError, match=r"'text' must be a WKT string \(got b'POINT'\)"):
        parse_wkt(b"POINT")


# --------------------------------------------------------------------------- the bulk path for FeatureCollections
def _collection(geometries: list, **feature_extras) -> dict:
    return {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "id": f"f{i}", "properties": {"i": i}, "geometry": geometry, **feature_extras}
            for i, geometry in enumerate(geometries)
        ],
    }


def _write(tmp_path, document, name="layer.geojson"):
    path = tmp_path / name
    path.write_text(json.dumps(document))
    return path


def test_a_feature_collection_file_reads_as_its_parsed_document_does(tmp_path):
    """Files go through a bulk path (shapely parses the geometries at once); documents feature by feature."""
    gen = rng(8)
    originals = np.concatenate(
        [
            random_polygons(gen, 20, span=6).to_shapely(),
            random_polygons_with_holes(gen, 10, span=6).to_shapely(),
            random_multipolygons(gen, 10, span=6).to_shapely(),
        ]
    )
    document = _collection([json.loads(shapely.to_geojson(g)) for g in originals])
    from_file = read_geojson(_write(tmp_path, document))
    from_document = read_geojson(document)
    assert shapely.equals_exact(from_file.regions.to_shapely(), from_document.regions.to_shapely(), tolerance=0).all()
    assert from_file.ids == from_document.ids and from_file.properties == from_document.properties
    assert from_file.report.read == len(originals) and not from_file.report.skipped


@pytest.mark.parametrize(
    "geometry, expected_area",
    [
        (
            {"type": "Polygon", "coordinates": [[[0, 0, 5], [2, 0, 5], [2, 2, 5], [0, 2, 5], [0, 0, 5]]]},
            4.0,
        ),  # z dropped
        ({"type": "Polygon", "coordinates": [[[0, 0], [2, 0], [2, 2], [0, 2]]]}, 4.0),  # unclosed: closed
        (
            {
                "type": "GeometryCollection",
                "geometries": [{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}],
            },
            0.5,
        ),
    ],
)
def test_files_the_bulk_path_does_not_take_are_read_feature_by_feature(tmp_path, geometry, expected_area):
    square = {"type": "Polygon", "coordinates": [[[5, 5], [6, 5], [6, 6], [5, 6], [5, 5]]]}
    read = read_geojson(_write(tmp_path, _collection([square, geometry])))
    np.testing.assert_allclose(read.regions.area, [1.0, expected_area])


def test_faults_in_a_file_are_named_and_skipped_like_in_a_document(tmp_path):
    square = {"type": "Polygon", "coordinates": [[[5, 5], [6, 5], [6, 6], [5, 6], [5, 5]]]}
    bow_tie = {"type": "Polygon", "coordinates": [[[0, 0], [2, 2], [2, 0], [0, 2], [0, 0]]]}
    path = _write(tmp_path, _collection([square, bow_tie, None]))
    with pytest.raises(FormatError, match=r"layer.geojson, features\[1\]: 'geometry' must be a valid polygon"):
        read_geojson(path)
    read = read_geojson(path, skip_invalid=True)
    assert read.ids == ("f0",) and len(read.report.skipped) == 2
    assert read_geojson(path, skip_invalid=True, repair=True).regions.area.tolist() == [1.0, 2.0]


def test_a_wkt_file_of_valid_polygons_reads_in_bulk_as_line_by_line(tmp_path):
    """Valid files are parsed at once; one faulty line sends the file to the line-by-line reader: same regions."""
    gen = rng(9)
    originals = np.concatenate(
        [random_polygons(gen, 10, span=6).to_shapely(), random_multipolygons(gen, 5, span=6).to_shapely()]
    )
    lines = [shapely.to_wkt(g, rounding_precision=-1) for g in originals]
    bulk = tmp_path / "valid.wkt"
    bulk.write_text("# parcels\n" + "\n".join(lines) + "\n")
    mixed = tmp_path / "mixed.wkt"
    mixed.write_text("\n".join(lines + ["LINESTRING (0 0, 1 1)"]) + "\n")
    fast, slow = read_wkt(bulk), read_wkt(mixed, skip_invalid=True)
    assert shapely.equals_exact(fast.regions.to_shapely(), slow.regions.to_shapely(), tolerance=0).all()
    assert fast.ids == slow.ids == tuple(range(len(lines))) and len(slow.report.skipped) == 1
