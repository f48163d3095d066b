"""The atlas inside another Streamlit app: a sentence box and the Translate page's heatmap, in a few lines.

    streamlit run docs/embedding.py
"""
import streamlit as st

from models import atlas


@st.cache_resource
def model() -> atlas.Model:
    return atlas.load("transformer")


text = st.text_input("An English sentence", "A dog runs on the beach.")
try:
    seen = model().translate(text)
except ValueError as e:  # a text the model cannot read (an empty one, say): said in a sentence
    st.info(str(e))
else:
    st.write(seen.translation)
    st.altair_chart(seen.heatmap(), width="stretch")
