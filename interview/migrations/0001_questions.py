import django.contrib.postgres.search
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
    ]

    operations = [
        migrations.CreateModel(
            name='Topic',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(help_text='Stable id; questions refer to it.', max_length=100, unique=True)),
                ('name', models.CharField(max_length=100)),
                ('description', models.TextField(blank=True)),
                ('position', models.PositiveIntegerField(default=0, help_text='Topics are listed in increasing position.')),
                ('origin', models.CharField(choices=[('file', 'File in git'), ('admin', 'Written in the admin')], default='admin', editable=False, max_length=10)),
                ('retired_at', models.DateTimeField(blank=True, help_text='Set when the topic left topics.yaml.', null=True)),
            ],
            options={
                'ordering': ('position', 'name'),
            },
        ),
        migrations.CreateModel(
            name='Question',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('slug', models.SlugField(help_text='Stable id, also the URL; never changes.', max_length=100, unique=True)),
                ('title', models.CharField(max_length=120)),
                ('difficulty', models.CharField(choices=[('easy', 'Easy'), ('medium', 'Medium'), ('hard', 'Hard')], max_length=10)),
                ('source', models.CharField(blank=True, help_text='The seed document the question comes from.', max_length=200)),
                ('prompt', models.TextField(help_text='The question as an interviewer asks it.')),
                ('answer_markdown', models.TextField(help_text='Markdown; code fences are highlighted.', verbose_name='model answer')),
                ('answer_html', models.TextField(editable=False, help_text='answer_markdown rendered when it was saved.')),
                ('key_points', models.JSONField(default=list, help_text='What a strong answer mentions: [{"text": "...", "phrasings": ["...", "..."]}, ...]')),
                ('origin', models.CharField(choices=[('file', 'File in git'), ('admin', 'Written in the admin')], default='admin', editable=False, max_length=10)),
                ('source_path', models.CharField(blank=True, editable=False, help_text='The file it was synced from, under the content folder.', max_length=300)),
                ('retired_at', models.DateTimeField(blank=True, help_text='Retired questions are hidden; what users recorded against them stays.', null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('search_vector', django.contrib.postgres.search.SearchVectorField(editable=False, null=True)),
                ('related', models.ManyToManyField(blank=True, related_name='related_from', to='interview.question')),
                ('topic', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='questions', to='interview.topic')),
            ],
            options={
                'ordering': ('topic__position', 'title'),
            },
        ),
    ]
